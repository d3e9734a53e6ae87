/// One page's entry in the Hatena Bookmark entry API, decoded leniently:
/// every field may be missing, `eid` may be a string or (older data) a
/// number, and a malformed bookmark is skipped rather than failing the entry.
struct HatenaEntry: Decodable, Sendable {
    var eid: String?
    var title: String?
    var count: Int?
    var url: String?
    var requestedURL: String?
    var entryURL: String?
    var screenshot: String?
    var bookmarks: [Bookmark]
    var related: [Related]

    struct Bookmark: Decodable, Sendable {
        var user: String
        var tags: [String]
        /// `"YYYY/MM/DD HH:MM"` as the API sends it.
        var timestamp: String
        /// `""` when the user left no comment.
        var comment: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            user = try container.decode(String.self, forKey: .user)
            tags = (try? container.decodeIfPresent([String].self, forKey: .tags)) ?? []
            timestamp = (try? container.decodeIfPresent(String.self, forKey: .timestamp)) ?? ""
            comment = (try? container.decodeIfPresent(String.self, forKey: .comment)) ?? ""
        }

        private enum CodingKeys: String, CodingKey {
            case user, tags, timestamp, comment
        }
    }

    struct Related: Decodable, Sendable {
        var title: String?
        var count: Int?
        var url: String?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try? container.decodeIfPresent(String.self, forKey: .eid) {
            eid = text
        } else if let number = try? container.decodeIfPresent(Int.self, forKey: .eid) {
            eid = String(number)
        }
        title = try? container.decodeIfPresent(String.self, forKey: .title)
        count = try? container.decodeIfPresent(Int.self, forKey: .count)
        url = try? container.decodeIfPresent(String.self, forKey: .url)
        requestedURL = try? container.decodeIfPresent(String.self, forKey: .requestedURL)
        entryURL = try? container.decodeIfPresent(String.self, forKey: .entryURL)
        screenshot = try? container.decodeIfPresent(String.self, forKey: .screenshot)
        bookmarks = (try? container.decodeIfPresent([Lossy<Bookmark>].self, forKey: .bookmarks))?.compactMap(\.value) ?? []
        related = (try? container.decodeIfPresent([Lossy<Related>].self, forKey: .related))?.compactMap(\.value) ?? []
    }

    private enum CodingKeys: String, CodingKey {
        case eid, title, count, url, screenshot, bookmarks, related
        case requestedURL = "requested_url"
        case entryURL = "entry_url"
    }
}

/// Decodes a `T`, or nothing when the element is malformed.
struct Lossy<T: Decodable & Sendable>: Decodable, Sendable {
    let value: T?

    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}
