import DeferredQueue
import DeferredQueueAsyncHTTPClient

// Runs without a network: a combinator, and a request that fails before any
// transfer (an invalid URL) on a session over the AsyncHTTPClient transport.
let session = Session(transport: AsyncHTTPClientTransport())
let sum = try await Deferred.all([Deferred(value: 1), Deferred(value: 2)]).value.reduce(0, +)
let failure = await session.request("not a URL").serializingData().result
print("consumer: sum \(sum); invalid URL: \((try? failure.get()) == nil ? "rejected" : "accepted?")")
