#if canImport(Glibc)
    import Glibc
#endif

/// The calling thread in glibc's own "C" locale object while json-c parses, then back as it was.
///
/// json-c moves the thread to a "C" `LC_NUMERIC` around every parse (so that `1.5` never reads as
/// `1,5`): it copies the thread's locale (`duplocale`, which takes the process's locale lock and
/// allocates), makes a new one and frees it afterwards — about 2 000 instructions a message. glibc
/// makes each of those a no-op when the locale in use is its static "C" object, so the parse enters
/// that object first (two `uselocale` calls, a thread-local pointer each) and json-c's own switch
/// costs nothing. Numbers read the same either way: both are "C" for `LC_NUMERIC`.
struct CNumericLocale {
    #if canImport(Glibc)
        /// `newlocale` returns the static "C" object itself for "C" on no base (never freed).
        nonisolated(unsafe) private static let staticC: locale_t? = newlocale(1 << LC_ALL, "C", nil)
        private let previous: locale_t?
    #endif

    static func enter() -> CNumericLocale {
        #if canImport(Glibc)
            guard let staticC else { return CNumericLocale(previous: nil) }
            return CNumericLocale(previous: uselocale(staticC))
        #else
            return CNumericLocale()
        #endif
    }

    func leave() {
        #if canImport(Glibc)
            if let previous { uselocale(previous) }
        #endif
    }
}
