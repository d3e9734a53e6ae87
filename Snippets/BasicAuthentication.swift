// HTTP Basic authentication: answer the server's challenge, or send the credential at once.
// Run: swift run BasicAuthentication [url]   (default: httpbin.org, which challenges for ada:lovelace)
import DeferredQueue

let url = CommandLine.arguments.dropFirst().first ?? "https://httpbin.org/basic-auth/ada/lovelace"
let session = Session()

// snippet.hide
@MainActor func basicAuthentication() async throws {
// snippet.show
// snippet.challenge
let report = try await session.request(url)
    .authenticate(username: "ada", password: "lovelace")
    .validate()
    .serializingString()
    .value
// snippet.end
print(report)

// snippet.eager
let eager = session.request(url, headers: [.authorization(username: "ada", password: "lovelace")])
// snippet.end
print(try await eager.validate().serializingString().value)
// snippet.hide
}

do { try await basicAuthentication() } catch { print(error) }
