import Testing
@testable import DeferredQueue

@Suite("The Public Suffix List is compiled in and applied by its own algorithm")
struct PublicSuffixListTests {
    @Test func commonSuffixesAndPrivateSuffixesArePublic() {
        for suffix in ["com", "co.uk", "uk", "github.io", "appspot.com", "example.kawasaki.jp", "xn--p1ai", "test", "localhost"] {
            #expect(PublicSuffixList.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "bbc.co.uk", "someone.github.io", "google.xn--p1ai"] {
            #expect(!PublicSuffixList.isPublicSuffix(domain), "\(domain)")
        }
    }

    @Test func wildcardAndExceptionRulesPrevail() {
        // *.ck with !www.ck; *.kawasaki.jp with !city.kawasaki.jp
        #expect(PublicSuffixList.publicSuffix(of: "anything.ck") == "anything.ck")
        #expect(PublicSuffixList.publicSuffix(of: "a.b.ck") == "b.ck")
        #expect(PublicSuffixList.publicSuffix(of: "www.ck") == "ck")
        #expect(PublicSuffixList.registrableDomain(of: "www.ck") == "www.ck")
        #expect(PublicSuffixList.publicSuffix(of: "shop.example.kawasaki.jp") == "example.kawasaki.jp")
        #expect(PublicSuffixList.publicSuffix(of: "city.kawasaki.jp") == "kawasaki.jp")
    }

    @Test func registrableDomainsAreTheSuffixAndOneMoreLabel() {
        #expect(PublicSuffixList.registrableDomain(of: "www.bank.co.uk") == "bank.co.uk")
        #expect(PublicSuffixList.registrableDomain(of: "a.b.example.com") == "example.com")
        #expect(PublicSuffixList.registrableDomain(of: "co.uk") == nil)
        #expect(PublicSuffixList.registrableDomain(of: "unknowntld") == nil)
        #expect(PublicSuffixList.registrableDomain(of: "evil.unknowntld") == "evil.unknowntld")
    }

    @Test func rulesParseFromTheListsTextFormat() {
        let rules = PublicSuffixList.parse("// comment\n\nfoo\n*.bar\n!keep.bar\n  baz.foo  \n*.deep.baz.foo\n")
        #expect(rules.normal == ["foo", "*.bar", "baz.foo", "*.deep.baz.foo"])
        #expect(rules.exceptions == ["keep.bar"])
        #expect(rules.longestRule == 4)
        #expect(PublicSuffixList.publicSuffix(of: "a.b.deep.baz.foo", rules: rules) == "b.deep.baz.foo")
        #expect(PublicSuffixList.publicSuffix(of: "x.y.bar", rules: rules) == "y.bar")
        #expect(PublicSuffixList.publicSuffix(of: "keep.bar", rules: rules) == "bar")
        #expect(PublicSuffixList.publicSuffix(of: "a.baz.foo", rules: rules) == "baz.foo")
    }

    /// A host of many labels — a hostile redirect's `Location`, which the
    /// cookie jar looks up before the hop is sent — is looked up in time and
    /// memory proportional to its length: only suffixes as long as the
    /// longest rule are made (all of them would be 40 GB of strings here).
    @Test(.timeLimit(.minutes(1)))
    func aHostOfManyLabelsIsLookedUpInProportionToItsLength() {
        let labels = String(repeating: "a.", count: 200_000)
        #expect(PublicSuffixList.rules.longestRule < 10)
        #expect(PublicSuffixList.publicSuffix(of: labels + "example.kawasaki.jp") == "example.kawasaki.jp")
        #expect(PublicSuffixList.publicSuffix(of: labels + "www.ck") == "ck")
        #expect(PublicSuffixList.publicSuffix(of: labels + "bank.co.uk") == "co.uk")
        #expect(PublicSuffixList.registrableDomain(of: labels + "example.com") == "example.com")
    }

    @Test func theCompiledListIsCompleteAndDated() {
        #expect(PublicSuffixList.rules.normal.count > 9_000)
        #expect(PublicSuffixList.rules.exceptions.count >= 8)
        #expect(!PublicSuffixList.version.isEmpty)
    }
}
