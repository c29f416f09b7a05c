import Testing
import TraitBridgeJSON

#if canImport(Glibc)
    import Glibc

    /// A parse runs json-c in glibc's static "C" locale (its own switch then costs nothing) and puts the
    /// thread's locale back as it found it, whatever that was.
    @Suite("JSONDocument and the thread's locale")
    struct JSONLocaleTests {
        @Test("the thread's own locale is the same after a parse, and a number reads the same in it")
        func localeKept() throws {
            // C.UTF-8 is built into glibc; de_DE (a decimal comma) only where the locale is installed.
            for name in ["C.UTF-8", "de_DE.UTF-8"] {
                guard let own = newlocale(1 << LC_ALL, name, nil) else {
                    #expect(name != "C.UTF-8", "glibc has C.UTF-8 built in")
                    continue
                }
                defer { freelocale(own) }
                let before = uselocale(own)
                defer { uselocale(before) }
                let document = try JSONDocument.parse(#"{"temperature": 21.5, "list": [1.25e2]}"#)
                #expect(document.root["temperature"]?.double == 21.5, "\(name)")
                #expect(document.root["list"]?[0]?.double == 125, "\(name)")
                #expect(uselocale(nil) == own, "\(name): the thread's locale is the one it had")
                #expect(throws: JSONParseError.self) { try JSONDocument.parse("{\"a\": 1,}") }
                #expect(uselocale(nil) == own, "\(name): and after a refused text")
            }
        }
    }
#endif
