import Foundation
import ReleaseGeneration
import ReleaseManifest

/// The foreign-customer scan: no file of a customer's package names another customer of the
/// manifest. A vendor's customer list is confidential, and a package travels to its customer
/// whole, tests and all; so every byte of every file is read for each other customer's app id
/// (any case, with or without dashes), bundle identifiers, name and id.
///
/// Each identifier must stand as a whole token: the bytes around it are no letter, digit or
/// `_`, so the customer `acme` is found in `ota/acme/models.json` but not in `acmes`. Letters
/// are compared without case (ASCII letters; other UTF-8 bytes as they are). An id or name
/// that is a single word of the template itself (a customer called `core`), or of this
/// customer's own identifiers, cannot be told apart from the template's or this customer's
/// words: such a customer is checked by its other identifiers only.
struct ForeignCustomerCheck: Sendable {
  /// One identifier of another customer, lower-cased, with whose it is and what it is.
  struct Identifier: Sendable {
    let bytes: [UInt8]
    let customer: String
    let kind: String
  }

  /// Identifiers by their first word, so a file is read once whatever the number of customers.
  private let byFirstWord: [[UInt8]: [Identifier]]
  /// Whether a first word of that many bytes is in `byFirstWord`: most words of a file are not
  /// looked up at all.
  private let firstWordLengths: [Bool]

  /// Checks `customerID`'s package against every other customer of `manifest`.
  /// - Parameter templateWords: the words of the template that are identifiers of a customer
  ///   (`templateWords(_:manifest:)`); more words do no harm.
  init(customerID: String, manifest: Manifest, templateWords: Set<[UInt8]>) {
    let own = manifest.customers.first { $0.id == customerID }.map(Self.identifiers(of:)) ?? []
    var exempt = templateWords
    for identifier in own { exempt.formUnion(Self.words(of: identifier.bytes)) }
    let ownBytes = Set(own.map(\.bytes))
    var byFirstWord: [[UInt8]: [Identifier]] = [:]
    for customer in manifest.customers where customer.id != customerID {
      for identifier in Self.identifiers(of: customer) {
        let words = Self.words(of: identifier.bytes)
        guard let first = words.first else { continue }
        let isOneWord = words == [identifier.bytes]
        if ownBytes.contains(identifier.bytes)
          || (isOneWord && identifier.kind != "app id" && exempt.contains(first))
        {
          continue
        }
        byFirstWord[first, default: []].append(identifier)
      }
    }
    self.byFirstWord = byFirstWord
    self.firstWordLengths = Self.lengthTable(byFirstWord.keys)
  }

  /// The identifiers of `manifest`'s customers that are a single word (lower-cased) and a word
  /// of some file of the template: the only template words `init` asks about. Found in one
  /// pass over the template that looks up only words of an identifier's length, as `problems`
  /// reads a package, rather than by collecting every word of the template on every run.
  static func templateWords(_ template: PackageTemplate, manifest: Manifest) -> Set<[UInt8]> {
    let oneWord = Set(
      manifest.customers.flatMap(identifiers(of:)).map(\.bytes).filter { words(of: $0) == [$0] })
    let lengths = lengthTable(oneWord)
    var found = Set<[UInt8]>()
    for file in template.files {
      let text = Array(file.bytes)
      forEachWord(in: text, lengths: lengths) { range, _ in
        let word = lowercased(text[range])
        if oneWord.contains(word) { found.insert(word) }
      }
    }
    return found
  }

  /// One line per identifier of another customer in the file at `path` (the first line it is
  /// on), each naming the archive, the file and the line.
  func problems(in contents: [UInt8], path: String, archive name: String) -> [String] {
    guard !byFirstWord.isEmpty else { return [] }
    var found: [String] = []
    var reported = Set<String>()
    // Only the words of an identifier's length are lower-cased, not the whole file.
    Self.forEachWord(in: contents, lengths: firstWordLengths) { range, line in
      for identifier in byFirstWord[Self.lowercased(contents[range])] ?? []
      where Self.matches(identifier.bytes, in: contents, at: range.lowerBound) {
        let key = identifier.kind + "\u{0}" + identifier.customer
        guard reported.insert(key).inserted else { continue }
        found.append(
          "\(name): \(path):\(line) holds the \(identifier.kind) of customer \(identifier.customer); a package holds nothing of another customer"
        )
      }
    }
    return found
  }

  /// Whether a word of that many bytes is one of `words`, by length.
  private static func lengthTable(_ words: some Collection<[UInt8]>) -> [Bool] {
    var lengths = [Bool](repeating: false, count: (words.map(\.count).max() ?? 0) + 1)
    for word in words { lengths[word.count] = true }
    return lengths
  }

  /// Calls `body` with each maximal run of word bytes of `text` whose length `lengths` marks,
  /// and the line it is on; every other word is skipped unread.
  private static func forEachWord(
    in text: [UInt8], lengths: [Bool], _ body: (Range<Int>, _ line: Int) -> Void
  ) {
    let isWord = wordBytes
    var line = 1
    var index = 0
    while index < text.count {
      let byte = text[index]
      guard isWord[Int(byte)] else {
        if byte == UInt8(ascii: "\n") { line += 1 }
        index += 1
        continue
      }
      var end = index
      while end < text.count, isWord[Int(text[end])] { end += 1 }
      if end - index < lengths.count, lengths[end - index] { body(index..<end, line) }
      index = end
    }
  }

  // MARK: - Tokens

  static func identifiers(of customer: Customer) -> [Identifier] {
    let appID = customer.appID.lowercased()
    var texts: [(String, String)] = [
      (appID, "app id"), (appID.replacingOccurrences(of: "-", with: ""), "app id"),
    ]
    texts += customer.bundleIdentifiers.map { ($0, "bundle identifier") }
    texts.append((customer.id, "id"))
    if let name = customer.name { texts.append((name, "name")) }
    return texts.compactMap { text, kind in
      let bytes = trimmed(lowercased(Array(text.utf8)))
      return bytes.isEmpty ? nil : Identifier(bytes: bytes, customer: customer.id, kind: kind)
    }
  }

  /// Letters, digits, `_` and every byte of a multi-byte UTF-8 character.
  static func isWordByte(_ byte: UInt8) -> Bool { wordBytes[Int(byte)] }

  /// `isWordByte` of each byte value, and each byte value in ASCII lower case: the scan reads
  /// every byte of every package, and a table lookup is what keeps it cheap in a debug build.
  private static let wordBytes: [Bool] = (0...255).map { value in
    switch UInt8(value) {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), 0x80...:
      return true
    default: return false
    }
  }
  private static let lowerCase: [UInt8] = (0...255).map { value in
    UInt8(value) + ((65...90).contains(value) ? 32 : 0)
  }

  static func lowercased(_ bytes: some Collection<UInt8>) -> [UInt8] {
    let lowerCase = Self.lowerCase
    return bytes.map { lowerCase[Int($0)] }
  }

  /// The maximal runs of word bytes.
  static func words(of bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(whereSeparator: { !isWordByte($0) }).map(Array.init)
  }

  /// Without leading and trailing bytes that are no word bytes (a name in parentheses).
  private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    guard let first = bytes.firstIndex(where: isWordByte), let last = bytes.lastIndex(where: isWordByte)
    else {
      return []
    }
    return Array(bytes[first...last])
  }

  /// Whether `identifier` (lower-cased) starts at `index` of `text` in any case (a word's start)
  /// and ends where a word ends.
  private static func matches(_ identifier: [UInt8], in text: [UInt8], at index: Int) -> Bool {
    let end = index + identifier.count
    let lowerCase = Self.lowerCase
    guard end <= text.count, text[index..<end].elementsEqual(identifier, by: { lowerCase[Int($0)] == $1 })
    else {
      return false
    }
    return end == text.count || !isWordByte(text[end])
  }
}
