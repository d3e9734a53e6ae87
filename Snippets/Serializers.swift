// The examples of the DocC article "Response serializers", as one program.
// Run: swift run Serializers [url]
import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLRequest and HTTPURLResponse on Linux
#endif

struct Entry: Decodable, Sendable { let title: String; let count: Int }
struct Settings: Decodable, Sendable { let title: String; let count: Int }

let url = CommandLine.arguments.dropFirst().first
    ?? "https://b.hatena.ne.jp/entry/json/?url=https%3A%2F%2Fwww.swift.org%2F"

// snippet.hide
@MainActor func shortcuts() async throws {
// snippet.show
// snippet.decoder
let entry = try await request(url)
    .validate()
    .serializingDecodable(Entry.self, decoder: JSONDecoder())
    .value
// snippet.end
// snippet.hide
    print(entry)
}

@MainActor func emptyBodies() async throws {
// snippet.show
// snippet.empty
_ = try await request(url, method: .delete).validate().serializingDecodable(Empty.self).value
// snippet.end
// snippet.hide
}

@MainActor func emptyCodes() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
// snippet.show
// snippet.emptyCodes
request(url, method: .post)
    .responseData(emptyResponseCodes: [202]) { response in
        print(response.value?.count ?? -1)   // 0 for an empty 202 Accepted
// snippet.hide
        done.resume()
// snippet.show
    }
let strict = request(url).serializingJSON(emptyResponseCodes: [])   // an empty 204 is an error
// snippet.end
// snippet.hide
        _ = strict
    }
}

@MainActor func preprocessors() async throws {
// snippet.show
// snippet.preprocessor
let json = try await request(url).serializingJSON(dataPreprocessor: GoogleXSSIPreprocessor()).value
// snippet.end
// snippet.hide
    print(json)
}

@MainActor func decoders() async throws {
// snippet.show
// snippet.plist
let settings = try await request(url)
    .serializingDecodable(Settings.self, decoder: PropertyListDecoder())
    .value
// snippet.end
// snippet.hide
    print(settings)
}

// snippet.show
// snippet.custom
struct LinesSerializer: ResponseSerializer {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?,
                   error: HTTPError?) throws -> [String] {
        try StringResponseSerializer()
            .serialize(request: request, response: response, data: data, error: error)
            .split(separator: "\n").map(String.init)
    }
}

// snippet.hide
@MainActor func custom() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
// snippet.show
request(url).response(responseSerializer: LinesSerializer()) { response in
    print(response.value ?? [])
// snippet.hide
    done.resume()
// snippet.show
}
// snippet.end
// snippet.hide
    }
}

@MainActor func wholeResponse() async throws {
// snippet.show
// snippet.wholeResponse
let response = try await request(url).validate()
    .serializingResponse(using: DecodableResponseSerializer<Entry>())
    .value
switch response.result {
case .success(let entry): print(entry.title)
case .failure(let error): print(response.response?.statusCode ?? 0, error)
}
// snippet.end
// snippet.hide
}

@MainActor func dataTask() async {
// snippet.show
// snippet.dataTask
let response = await request(url).validate().serializingDecodable(Entry.self).response
print(response.response?.statusCode ?? 0, response.result)

let task: DataTask<Entry> = request(url).serializingDecodable(Entry.self)
task.cancel()
print(await task.result)  // .failure(HTTPError.cancelled)
// snippet.end
// snippet.hide
}

for example in [shortcuts, emptyBodies, preprocessors, decoders, wholeResponse] {
    do { try await example() } catch { print(error) }
}
await emptyCodes()
await custom()
await dataTask()
// snippet.show
