import Foundation

/// JSON the tool writes for others to read and compare (`release.json`, `artifacts.json`, the
/// state file, indexes, manifests, a package's `customer.json`): sorted keys, one value per
/// line, slashes as they are, a trailing newline. The same value always gives the same bytes,
/// which reproducible releases and byte-identical merges rely on.
public enum StableJSON {
  public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value) + Data("\n".utf8)
  }

  /// Sorted keys, no whitespace, on one line: what digests are taken of and what `--json`
  /// prints.
  public static func canonical<Value: Encodable>(_ value: Value) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)) ?? Data()
  }
}
