/// Terminal column arithmetic that keeps Japanese text aligned: East Asian
/// wide and full-width characters take two columns, combining marks none.
enum TextWidth {
    /// The columns `text` occupies in a terminal.
    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The columns one character occupies.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.value == 0x200B { return 0 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending in "…" when cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 1 else { return width == 1 ? "…" : "" }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    static func pad(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }
}
