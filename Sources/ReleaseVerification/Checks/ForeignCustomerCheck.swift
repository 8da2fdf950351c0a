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
  /// - Parameter templateWords: the words of the template (`words(of:)` of its files).
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
        let isOneWord = words.count == 1 && words[0] == identifier.bytes
        if ownBytes.contains(identifier.bytes)
          || (isOneWord && identifier.kind != "app id" && exempt.contains(first))
        {
          continue
        }
        byFirstWord[first, default: []].append(identifier)
      }
    }
    self.byFirstWord = byFirstWord
    var firstWordLengths = [Bool](repeating: false, count: (byFirstWord.keys.map(\.count).max() ?? 0) + 1)
    for word in byFirstWord.keys { firstWordLengths[word.count] = true }
    self.firstWordLengths = firstWordLengths
  }

  /// The words of every file of the template, lower-cased.
  static func templateWords(_ template: PackageTemplate) -> Set<[UInt8]> {
    var words = Set<[UInt8]>()
    for file in template.files { words.formUnion(Self.words(of: lowercased(Array(file.bytes)))) }
    return words
  }

  /// One line per identifier of another customer in the file at `path` (the first line it is
  /// on), each naming the archive, the file and the line.
  func problems(in contents: [UInt8], path: String, archive name: String) -> [String] {
    guard !byFirstWord.isEmpty else { return [] }
    let text = Self.lowercased(contents)
    let isWord = Self.wordBytes
    var found: [String] = []
    var reported = Set<String>()
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
      guard end - index < firstWordLengths.count, firstWordLengths[end - index] else {
        index = end
        continue
      }
      for identifier in byFirstWord[Array(text[index..<end])] ?? []
      where Self.matches(identifier.bytes, in: text, at: index) {
        let key = identifier.kind + "\u{0}" + identifier.customer
        guard reported.insert(key).inserted else { continue }
        found.append(
          "\(name): \(path):\(line) holds the \(identifier.kind) of customer \(identifier.customer); a package holds nothing of another customer"
        )
      }
      index = end
    }
    return found
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

  static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
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

  /// Whether `identifier` starts at `index` (a word's start) and ends where a word ends.
  private static func matches(_ identifier: [UInt8], in text: [UInt8], at index: Int) -> Bool {
    let end = index + identifier.count
    guard end <= text.count, text[index..<end].elementsEqual(identifier) else { return false }
    return end == text.count || !isWordByte(text[end])
  }
}
