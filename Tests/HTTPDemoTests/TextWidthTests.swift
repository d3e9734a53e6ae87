@testable import HTTPDemo
import Testing

@Suite("HTTPDemo: terminal text width")
struct TextWidthTests {
    @Test func wideCharactersTakeTwoColumns() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("日本語") == 6)
        #expect(TextWidth.of("ｶﾀｶﾅ") == 4, "half-width katakana are narrow")
        #expect(TextWidth.of("e\u{301}") == 1, "a combining accent takes no column")
        #expect(TextWidth.of("😀") == 2)
    }

    @Test func truncationNeverExceedsTheWidth() {
        #expect(TextWidth.truncate("hello", to: 10) == "hello")
        #expect(TextWidth.truncate("hello world", to: 6) == "hello…")
        #expect(TextWidth.truncate("日本語のテキスト", to: 7) == "日本語…")
        #expect(TextWidth.of(TextWidth.truncate("日本語のテキスト", to: 8)) <= 8)
        #expect(TextWidth.pad("日本", to: 6) == "日本  ")
    }
}
