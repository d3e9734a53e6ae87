import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DeferredQueue

/// What every handler of one request received: for each handler name, the
/// outcome kinds in delivery order (`"ok"` or an ``HTTPError/kind``).
///
/// "Exactly once" is checked without sleeping: the probe chains a sentinel
/// handler *last*. Handlers run in registration order on the request's serial
/// queue and are dispatched, in that order, to the serial `handlerQueue`, so
/// when the sentinel has run every earlier handler invocation — a duplicate
/// included — has been recorded already.
public struct ProbeReport: Sendable {
    public init() {}

    /// Handler names in registration order.
    public static let handlers = ["response", "responseData", "responseJSON", "responseString", "serializingString"]

    public var kinds: [String: [String]] = [:]
    public var statusCode: Int?
    /// The body the raw `response` handler saw.
    public var body: Data?
    public var text: String?
    public var json: JSON?

    /// `true` when every handler ran exactly once.
    public var eachRanOnce: Bool {
        Self.handlers.allSatisfy { kinds[$0]?.count == 1 }
    }

    /// The single outcome kind of `handler` (or a description of how many it got).
    public func kind(_ handler: String) -> String {
        let seen = kinds[handler] ?? []
        return seen.count == 1 ? seen[0] : "ran \(seen.count) times: \(seen)"
    }

    /// Every handler's outcome kind, in registration order.
    public var allKinds: [String] { Self.handlers.map(kind) }
}

/// The outcome kind of a handler's result: `"ok"` or the error's ``HTTPError/kind``.
public func outcomeKind<Value>(_ result: Result<Value, HTTPError>) -> String {
    switch result {
    case .success: return "ok"
    case .failure(let error): return error.kind
    }
}

/// Chains the five handlers of ``ProbeReport/handlers`` onto `request` (after
/// `validate()` when `validated`), then a sentinel, and waits for the sentinel.
///
/// - Returns: The report, or `nil` if the sentinel did not run within the
///   guard deadline (a hang: the caller records it as a failure).
public func probe(_ request: DataRequest, validated: Bool = false, within seconds: Double = 120) async -> ProbeReport? {
    let log = Recorder<(String, String)>()
    let details = Recorder<ProbeReport>()
    let sentinel = Latch()
    let deferredDone = Latch()
    if validated { request.validate() }
    request
        .response(queue: handlerQueue) { response in
            var detail = ProbeReport()
            detail.statusCode = response.response?.statusCode
            detail.body = response.data
            details.append(detail)
            log.append(("response", outcomeKind(response.result)))
        }
        .responseData(queue: handlerQueue) { log.append(("responseData", outcomeKind($0.result))) }
        .responseJSON(queue: handlerQueue) { response in
            var detail = ProbeReport()
            detail.json = response.value
            details.append(detail)
            log.append(("responseJSON", outcomeKind(response.result)))
        }
        .responseString(queue: handlerQueue) { response in
            var detail = ProbeReport()
            detail.text = response.value
            details.append(detail)
            log.append(("responseString", outcomeKind(response.result)))
        }
    let serialized = request.serializingString()
    Task {
        let result = await serialized.result
        let kind: String
        switch result {
        case .success: kind = "ok"
        case .failure(let error as HTTPError): kind = error.kind
        case .failure(let error): kind = "not an HTTPError: \(error)"
        }
        log.append(("serializingString", kind))
        deferredDone.arrive()
    }
    request.response(queue: handlerQueue) { _ in sentinel.arrive() }
    guard await sentinel.wait(seconds: seconds), await deferredDone.wait(seconds: seconds) else { return nil }
    var report = ProbeReport()
    for (name, kind) in log.events { report.kinds[name, default: []].append(kind) }
    for detail in details.events {
        report.statusCode = report.statusCode ?? detail.statusCode
        report.body = report.body ?? detail.body
        report.text = report.text ?? detail.text
        report.json = report.json ?? detail.json
    }
    return report
}
