import Foundation
import LoopbackServer
import Testing

/// ``Reply/raw(_:)`` sends malformed or unusual responses byte for byte, for transport-defect tests.
///
/// What clients make of them is the client's business; note that on Linux
/// swift-corelibs-foundation's URLSession fails both `Content-Length:5` (no
/// space) and `HTTP/1.1 200` (no reason phrase) with "Failed writing header".
@Suite("LoopbackServer raw replies")
struct RawReplyTests {
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Unfinished: yes\r\n",  // no blank line, then close
        "HTTP/1.1 200 OK\r\nContent-Length:5\r\n\r\nhello",  // no space after the colon
        "HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello",  // no reason phrase
        "HTTP/1.1 200 \r\nContent-Length: 5\r\n\r\nhello",  // empty reason phrase
        "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello",  // bare LF line ends
    ])
    func oddResponsesAreSentVerbatimThenClosed(text: String) throws {
        let server = try LoopbackServer { _ in .raw(Data(text.utf8)) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readToEnd() == Data(text.utf8))
    }
}
