import Foundation
@testable import LoopbackServer
import Testing

/// The streaming multipart split agrees with the buffered one, however the body is cut into pieces.
@Suite("LoopbackServer multipart scanner")
struct MultipartScannerTests {
    private static let bodies: [String] = [
        "--b\r\n\r\n\r\n--b--",
        "preamble\r\n--b\r\nA: 1\r\n\r\nx\r\n--b \t\r\nB: 2\r\nC: 3\r\n\r\n\r\n--b\r\n\r\n\r\n--b--epilogue",
        "--b\r\n\r\n\r\n--bb\r\n\r\n\r\n--b--",
        "\r\n--b\r\n\r\nhas --b inside a line\r\n--b--\r\n",
        "--b\r\n\r\nno end",
        "--b\r\nbad header\r\n\r\nx\r\n--b--",
        "--b\r\n\r\nx\r\n--bogus\r\n",
        "no boundary",
        "--b",
    ]

    @Test(arguments: [1, 2, 3, 5, 8, 1000])
    func piecesOfAnySizeGiveTheSameParts(pieceSize: Int) {
        var wellFormed = 0
        for text in Self.bodies {
            let body = Array(text.utf8)
            var scanner = MultipartScanner(boundary: "b")
            for start in stride(from: 0, to: body.count, by: pieceSize) {
                body[start..<min(start + pieceSize, body.count)].withUnsafeBytes { scanner.feed($0) }
            }
            let streamed = scanner.finish()
            let buffered = Result { () throws(MultipartError) in
                try MultipartParser(body: Data(body), boundary: "b").parts()
            }
            switch (streamed, buffered) {
            case let (.success(left), .success(right)):
                #expect(left.map(\.body) == right.map(\.body), "\(text.debugDescription)")
                #expect(left.map(\.length) == right.map(\.length))
                #expect(left.map(\.digest) == right.map(\.digest))
                #expect(left.map { $0.headers.map(\.name) } == right.map { $0.headers.map(\.name) })
                wellFormed += 1
            case (.failure, .failure):
                break
            default:
                Issue.record("\(text.debugDescription): streamed \(streamed), buffered \(buffered)")
            }
        }
        #expect(wellFormed == 3)
    }
}
