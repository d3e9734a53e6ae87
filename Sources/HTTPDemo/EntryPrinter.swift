/// Renders an entry as text in which every line fits `width` terminal
/// columns (at least 40): a header, then a table of bookmarks whose columns
/// shrink to fit, with long text cut with "…".
///
/// Text from the server is printed through ``Terminal/printable(_:)``, so an
/// entry cannot move the cursor, recolour the terminal or reorder a line, and
/// only as much of it as a line can show is looked at (a field of megabytes
/// costs no more than a short one).
struct EntryPrinter {
    var width: Int
    var limit: Int?

    static let minimumWidth = 40

    func render(_ entry: HatenaEntry) -> String {
        var lines: [String] = []
        lines.append("Title:     \(entry.title.map(printable) ?? "(untitled)")")
        let shown = limit.map { min($0, entry.bookmarks.count) } ?? entry.bookmarks.count
        let total = entry.count ?? entry.bookmarks.count
        var countLine = "Bookmarks: \(total)"
        if shown < total { countLine += " (showing \(shown)" + (shown < entry.bookmarks.count ? " of \(entry.bookmarks.count) listed)" : " listed)") }
        lines.append(countLine)
        lines.append("Entry:     \(entry.entryURL.map(printable) ?? "-")")
        if let url = entry.url { lines.append("Page:      \(printable(url))") }
        let bookmarks = Array(entry.bookmarks.prefix(shown))
        guard !bookmarks.isEmpty else {
            lines.append("")
            lines.append(total > 0 ? "(no bookmark is public)" : "(no bookmarks yet)")
            return lines.map(fit).joined(separator: "\n")
        }
        lines.append("")
        lines.append(contentsOf: table(bookmarks))
        return lines.map(fit).joined(separator: "\n")
    }

    /// `line` cut to the width.
    func fit(_ line: String) -> String {
        TextWidth.truncate(line, to: columns)
    }

    /// `text` broken into lines of the width at spaces.
    func wrap(_ text: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if TextWidth.of(candidate) <= columns || line.isEmpty {
                line = candidate
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines.map(fit).joined(separator: "\n")
    }

    private var columns: Int { max(Self.minimumWidth, width) }

    private func table(_ bookmarks: [HatenaEntry.Bookmark]) -> [String] {
        let layout = Layout(
            width: columns,
            user: bookmarks.map { TextWidth.of(printable($0.user)) }.max() ?? 4,
            tags: bookmarks.map { TextWidth.of(tags($0)) }.max() ?? 4
        )
        func row(_ date: String, _ user: String, _ tags: String, _ comment: String) -> String {
            let line = [
                TextWidth.pad(date, to: Layout.date), TextWidth.pad(user, to: layout.user),
                TextWidth.pad(tags, to: layout.tags), TextWidth.truncate(comment, to: layout.comment),
            ].joined(separator: Layout.gap)
            return String(line.reversed().drop { $0 == " " }.reversed())
        }
        var lines = [row("DATE", "USER", "TAGS", "COMMENT")]
        for bookmark in bookmarks {
            let comment = bookmark.comment.isEmpty ? "-" : printable(bookmark.comment)
            lines.append(row(printable(bookmark.timestamp), printable(bookmark.user), tags(bookmark), comment))
        }
        return lines
    }

    /// Column widths that add up to at most `width`: the user and tag
    /// columns as wide as their widest value (up to 20 and 24), narrowed —
    /// tags first, down to 4 each — until the comment has 10.
    struct Layout {
        static let date = 16
        static let gap = "  "
        static let minimumComment = 10
        static let minimumColumn = 4
        var user: Int
        var tags: Int
        var comment: Int

        init(width: Int, user natural: Int, tags naturalTags: Int) {
            var user = min(20, max(Self.minimumColumn, natural))
            var tags = min(24, max(Self.minimumColumn, naturalTags))
            let available = width - Self.date - 3 * Self.gap.count
            var excess = user + tags + Self.minimumComment - available
            if excess > 0 {
                let fromTags = min(excess, tags - Self.minimumColumn)
                tags -= fromTags
                excess -= fromTags
                user -= min(excess, user - Self.minimumColumn)
            }
            self.user = user
            self.tags = tags
            self.comment = max(1, available - user - tags)
        }
    }

    private func tags(_ bookmark: HatenaEntry.Bookmark) -> String {
        bookmark.tags.isEmpty ? "-" : bookmark.tags.map { printable($0) }.joined(separator: ", ")
    }

    /// The start of `text` that a line of the width can show, and one
    /// character more (so that cutting it adds "…"), made printable: every
    /// printable character is at least a column wide.
    private func printable(_ text: String) -> String {
        Terminal.printable(text.prefix(columns + 1))
    }
}
