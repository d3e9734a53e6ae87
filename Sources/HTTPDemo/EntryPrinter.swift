/// Renders an entry as text: a header, then a table of bookmarks that fits
/// `width` terminal columns (comments are cut with "…").
struct EntryPrinter {
    var width: Int
    var limit: Int?

    func render(_ entry: HatenaEntry) -> String {
        var lines: [String] = []
        lines.append("Title:     \(entry.title ?? "(untitled)")")
        let shown = limit.map { min($0, entry.bookmarks.count) } ?? entry.bookmarks.count
        let total = entry.count ?? entry.bookmarks.count
        var countLine = "Bookmarks: \(total)"
        if shown < total { countLine += " (showing \(shown)" + (shown < entry.bookmarks.count ? " of \(entry.bookmarks.count) listed)" : " listed)") }
        lines.append(countLine)
        lines.append("Entry:     \(entry.entryURL ?? "-")")
        if let url = entry.url { lines.append("Page:      \(url)") }
        let bookmarks = Array(entry.bookmarks.prefix(shown))
        guard !bookmarks.isEmpty else {
            lines.append("")
            lines.append(total > 0 ? "(no bookmark is public)" : "(no bookmarks yet)")
            return lines.joined(separator: "\n")
        }
        lines.append("")
        lines.append(contentsOf: table(bookmarks))
        return lines.joined(separator: "\n")
    }

    private func table(_ bookmarks: [HatenaEntry.Bookmark]) -> [String] {
        let dateWidth = 16
        let userWidth = min(20, max(4, bookmarks.map { TextWidth.of($0.user) }.max() ?? 4))
        let tagWidth = min(24, max(4, bookmarks.map { TextWidth.of(tags($0)) }.max() ?? 4))
        let commentWidth = max(10, width - dateWidth - userWidth - tagWidth - 6)
        func row(_ date: String, _ user: String, _ tags: String, _ comment: String) -> String {
            let line = [
                TextWidth.pad(date, to: dateWidth), TextWidth.pad(user, to: userWidth),
                TextWidth.pad(tags, to: tagWidth), TextWidth.truncate(comment, to: commentWidth),
            ].joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }
        var lines = [row("DATE", "USER", "TAGS", "COMMENT")]
        for bookmark in bookmarks {
            let comment = bookmark.comment.isEmpty ? "-" : singleLine(bookmark.comment)
            lines.append(row(bookmark.timestamp, bookmark.user, tags(bookmark), comment))
        }
        return lines
    }

    private func tags(_ bookmark: HatenaEntry.Bookmark) -> String {
        bookmark.tags.isEmpty ? "-" : bookmark.tags.joined(separator: ", ")
    }

    private func singleLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
