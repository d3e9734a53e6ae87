import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

// HTTPDemo: fetches the Hatena Bookmark entry for a page, using one request
// with three chained handlers — .response, .responseString, .responseDecodable —
// that run in the order they were chained once the response is complete.

let exitCode = await HTTPDemo.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
