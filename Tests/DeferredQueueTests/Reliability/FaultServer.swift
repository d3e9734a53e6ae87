import Foundation
import LoopbackServer

/// A loopback server (127.0.0.1, ephemeral port) with one route per fault the
/// fault matrix exercises. Each test starts its own.
final class FaultServer: Sendable {
    let server: LoopbackServer

    static let bigBodySize = 16 * 1024 * 1024
    /// "café" in ISO-8859-1: `0xE9` alone is not valid UTF-8.
    static let latin1Bytes = Data([0x63, 0x61, 0x66, 0xE9])

    init() throws {
        server = try LoopbackServer { FaultServer.reply(to: $0) }
    }

    deinit { server.shutdown() }

    func url(_ path: String) -> String { server.url(path).absoluteString }

    private static func reply(to request: ServerRequest) -> Reply {
        switch request.path {
        case "/ok": return .json(#"{"ok":true}"#)
        case "/never": return .neverRespond
        case "/close-after-headers": return .closeAfterHeaders(declaredLength: 1_000)
        case "/close-mid-body": return .closeMidBody(body: Data(repeating: 66, count: 10_000), sentBytes: 100)
        case "/length-too-long":
            return .response(status: 200, headers: [("Content-Length", "100")], body: Data(#"{"a":1}"#.utf8))
        case "/length-too-short":
            return .response(status: 200, headers: [("Content-Length", "4")], body: Data("1234567890".utf8))
        case "/continue-then-ok":
            return .raw(Data(("HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4\r\nConnection: close\r\n\r\ntrue").utf8))
        case "/lone-continue": return .raw(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        case "/redirect": return .redirect(to: "/ok")
        case "/redirect-loop": return .redirect(to: "/redirect-loop")
        case "/not-modified": return .response(status: 304)
        case "/big":
            return .response(status: 200, headers: [("Content-Type", "application/octet-stream")],
                             body: Data(repeating: 0x2A, count: bigBodySize))
        case "/latin1-undeclared":
            return .response(status: 200, headers: [("Content-Type", "text/plain")], body: latin1Bytes)
        case "/latin1-declared-utf8":
            return .response(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: latin1Bytes)
        case "/malformed-json": return .json(#"{"title": "hello", "count": 3,]"#)
        case "/truncated-json": return .json(#"{"title": "hello", "tags": ["a", "b""#)
        case "/id": return .text(request.query["id"] ?? "")
        default:
            if request.path.hasPrefix("/status/"), let code = Int(request.path.dropFirst(8)) {
                return .text("status \(code)", status: code)
            }
            return .text("no route for \(request.path)", status: 404)
        }
    }
}
