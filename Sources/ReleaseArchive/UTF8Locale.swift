import Foundation

/// libarchive converts entry names between UTF-8 (what zips here store) and the charset of the
/// calling thread's locale. A Swift process runs in the "C" locale, whose charset is ASCII, so
/// any non-ASCII name fails ("Pathname cannot be converted from UTF-8 to current locale") or
/// is mangled. Every archive operation therefore runs with a UTF-8 locale set for its own thread
/// only (`uselocale`), which makes those conversions the identity and leaves the rest of the
/// process, including other threads, untouched.
enum UTF8Locale {
  /// Created once and never freed; nil if the system has no UTF-8 locale (ASCII names still work).
  // nonisolated(unsafe): `locale_t` is a C pointer, so not Sendable; this one is made once by
  // the static initialiser (which Swift runs exactly once, thread-safely), never changed or
  // freed, and `uselocale` only reads it.
  nonisolated(unsafe) private static let locale: locale_t? = {
    for name in ["C.UTF-8", "C.utf8", "UTF-8", "en_US.UTF-8"] {
      if let locale = newlocale(LC_CTYPE_MASK, name, nil) { return locale }
    }
    return nil
  }()

  static func run<T>(_ body: () throws -> T) rethrows -> T {
    guard let locale else { return try body() }
    let previous = uselocale(locale)
    defer { uselocale(previous) }
    return try body()
  }
}
