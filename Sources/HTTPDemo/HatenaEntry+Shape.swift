import DeferredQueue

extension HatenaEntry {
    /// Why `json` is not a Hatena Bookmark entry, or `nil` when it is one.
    ///
    /// The decoder is lenient about fields (any may be missing or malformed),
    /// so without this check any object — `{"foo": 1}` — would print as an
    /// untitled page with no bookmarks. An entry is an object that names
    /// itself (`eid` or `entry_url`) and whose `bookmarks` and `count`, when
    /// present, are a list and a number. `null` is no entry (not bookmarked
    /// yet) and is decided before this.
    static func shapeProblem(in json: JSON) -> String? {
        guard let members = json.object else { return "expected a JSON object, got \(kind(of: json))" }
        guard members["eid"]?.string != nil || members["eid"]?.int != nil || members["entry_url"]?.string != nil else {
            return #"expected an object with "eid" or "entry_url", got one without them"#
        }
        if let bookmarks = members["bookmarks"], bookmarks.array == nil, !bookmarks.isNull {
            return #""bookmarks" should be a list, got \#(kind(of: bookmarks))"#
        }
        if let count = members["count"], count.double == nil, !count.isNull {
            return #""count" should be a number, got \#(kind(of: count))"#
        }
        return nil
    }

    private static func kind(of json: JSON) -> String {
        switch json {
        case .null: return "null"
        case .bool(let value): return "\(value)"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
