import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// A bounded mutation test of the manifest: 150 byte and structure mutations of the
/// repository's `customers.json`, from a fixed seed, each run through the real executable with
/// `--dry-run`. None may crash, hang, or exit other than 0 or 2; a refusal says why on stderr,
/// and says the same when the run is real; nothing is ever written.
final class ManifestMutationEndToEndTests: XCTestCase {
  static let seed: UInt64 = 0x5EED_0006
  static let caseCount = 150
  static let timeout = 20.0

  func testSplitMix64MatchesTheReferenceSequence() {
    // The first outputs of Vigna's splitmix64.c for seed 0 (published test vector).
    var generator = SplitMix64(seed: 0)
    XCTAssertEqual(
      [generator.next(), generator.next(), generator.next()],
      [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
  }

  func testMutatedManifestsNeverCrashHangOrWrite() throws {
    let original = try Data(contentsOf: RepositoryRoot.url.appendingPathComponent("customers.json"))
    let workspace = try Workspace()
    let cache = workspace.file("mutation-cache")
    let rootEntries = Set(try FileManager.default.contentsOfDirectory(atPath: workspace.root.path))
    let others = Workspace.snapshot(workspace.root).filter { $0.key != "customers.json" }

    var generator = SplitMix64(seed: Self.seed)
    var exits: [Int32: Int] = [:]
    var byKind: [String: Int] = [:]
    var slowest = (seconds: 0.0, kind: "")
    var realRuns = 0
    let start = Date()
    for index in 0..<Self.caseCount {
      var mutated = original
      var kinds: [String] = []
      // Mostly one mutation, sometimes two stacked.
      for _ in 0..<(generator.next() % 4 == 0 ? 2 : 1) {
        let kind = Mutator.kinds[Int(generator.next() % UInt64(Mutator.kinds.count))]
        mutated = Mutator.apply(kind, to: mutated, &generator)
        kinds.append(kind)
      }
      kinds.forEach { byKind[$0, default: 0] += 1 }
      try mutated.write(to: workspace.file("customers.json"))
      let label = "case \(index) (\(kinds.joined(separator: " + ")))"

      let run = try ReleaseBinary.run(
        ["all", "--dry-run", "--cache", cache.path], in: workspace.root, timeout: Self.timeout)
      if run.seconds > slowest.seconds { slowest = (run.seconds, label) }
      XCTAssertFalse(run.timedOut, "\(label): hung (killed after \(Self.timeout)s)")
      XCTAssertNil(run.signal, "\(label): crashed: \(run.allOutput)")
      XCTAssertTrue([0, 2].contains(run.exitCode), "\(label): exit \(run.exitCode): \(run.allOutput)")
      exits[run.exitCode, default: 0] += 1
      if run.exitCode == 2 {
        XCTAssertFalse(run.standardErrorLines.isEmpty, "\(label): refused without saying why")
        XCTAssertTrue(
          run.standardErrorLines.allSatisfy { $0.hasPrefix("error: ") }, "\(label): \(run.standardError)")
        // The same manifest for real, not as a dry run: refused the same way before anything is
        // written or any process started. (An accepted manifest would build; those stay dry
        // runs.) In this process, with a process runner that fails the test on any call: the
        // executable's dry run has just shown that this input neither crashes nor hangs.
        let real = InProcessCLI.run(["all", "--cache", cache.path], root: workspace.root)
        XCTAssertEqual(real.code, 2, "\(label): real run: \(real.allOutput)")
        XCTAssertEqual(real.standardError, run.standardErrorLines, "\(label): real run says otherwise")
        realRuns += 1
      } else if run.exitCode == 0 {
        XCTAssertTrue(
          run.standardOutput.contains("plan "), "\(label): a dry run prints its plan: \(run.allOutput)")
      }
      XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.path), "\(label): dist/ created")
      XCTAssertFalse(FileManager.default.fileExists(atPath: cache.path), "\(label): cache created")
      XCTAssertEqual(
        Set(try FileManager.default.contentsOfDirectory(atPath: workspace.root.path)), rootEntries,
        "\(label): wrote files")
      if testRun?.failureCount ?? 0 > 20 { break }  // one bug, not 150 reports of it
    }
    XCTAssertEqual(
      Workspace.snapshot(workspace.root).filter { $0.key != "customers.json" }, others, "inputs untouched")
    // The mutations reach both sides of validation, or the test would prove little.
    XCTAssertGreaterThan(exits[2] ?? 0, 0, "no mutation was refused")
    XCTAssertGreaterThan(exits[0] ?? 0, 0, "no mutation was accepted")
    print(
      "ManifestMutationEndToEndTests: \(exits.values.reduce(0, +)) mutations run in \(String(format: "%.1f", Date().timeIntervalSince(start)))s, "
        + "exit 0: \(exits[0] ?? 0), exit 2: \(exits[2] ?? 0) (each also run for real: \(realRuns)); by kind: "
        + byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        + "; slowest \(String(format: "%.2f", slowest.seconds))s (\(slowest.kind))")
  }
}

/// Byte-level and structure-level mutations of a JSON manifest.
enum Mutator {
  static let kinds = [
    "flip bit", "replace byte", "delete bytes", "insert token", "insert huge string", "truncate",
    "duplicate bytes", "deep nesting", "remove key", "duplicate key", "remove entry", "duplicate entry",
    "swap type", "extreme number",
  ]

  static let tokens: [[UInt8]] = [
    Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8), Array(",".utf8),
    Array(":".utf8), Array("\\".utf8), Array("\n".utf8), Array("'".utf8), [0], [0xFF], [0xC3],
    [0xEF, 0xBB, 0xBF],
    Array("\\u".utf8), Array("\\uD800".utf8), Array("1e999".utf8), Array("-".utf8), Array("null".utf8),
    Array("\"\\\"\\\\\\n\"".utf8), Array("/*".utf8), Array("\t".utf8),
  ]

  static func apply(_ kind: String, to data: Data, _ generator: inout SplitMix64) -> Data {
    var bytes = [UInt8](data)
    func position(_ inclusiveEnd: Bool = false) -> Int {
      let count = bytes.count + (inclusiveEnd ? 1 : 0)
      return count == 0 ? 0 : Int(generator.next() % UInt64(count))
    }
    switch kind {
    case "flip bit":
      guard !bytes.isEmpty else { return data }
      bytes[position()] ^= UInt8(1 << (generator.next() % 8))
    case "replace byte":
      guard !bytes.isEmpty else { return data }
      bytes[position()] = UInt8(truncatingIfNeeded: generator.next())
    case "delete bytes":
      guard !bytes.isEmpty else { return data }
      let start = position()
      bytes.removeSubrange(start..<min(bytes.count, start + 1 + Int(generator.next() % 16)))
    case "insert token":
      bytes.insert(contentsOf: tokens[Int(generator.next() % UInt64(tokens.count))], at: position(true))
    case "insert huge string":
      let length = 100_000 + Int(generator.next() % 900_000)
      let quoted = generator.next() % 2 == 0
      let body = [UInt8](repeating: UInt8(ascii: "A"), count: length)
      bytes.insert(contentsOf: quoted ? [0x22] + body + [0x22] : body, at: position(true))
    case "truncate":
      bytes.removeSubrange(position(true)...)
    case "duplicate bytes":
      guard !bytes.isEmpty else { return data }
      let start = position()
      let range = start..<min(bytes.count, start + 1 + Int(generator.next() % 200))
      bytes.insert(contentsOf: Array(bytes[range]), at: position(true))
    case "deep nesting":
      let depth = 1 + Int(generator.next() % 20_000)
      let open = generator.next() % 2 == 0 ? UInt8(ascii: "[") : UInt8(ascii: "{")
      bytes.insert(contentsOf: [UInt8](repeating: open, count: depth), at: position(true))
    case "duplicate key":
      // Textually, since a parsed object cannot hold a key twice: `"key": <other value>, ` is
      // inserted before an existing `"key":`.
      let text = String(decoding: bytes, as: UTF8.self)
      let keys = [
        "id", "name", "app_id", "bundle_identifiers", "customModels", "flowId", "flowName", "modelVersion",
      ]
      let key = keys[Int(generator.next() % UInt64(keys.count))]
      let ranges = text.occurrences(of: "\"\(key)\":")
      guard !ranges.isEmpty else { return data }
      let range = ranges[Int(generator.next() % UInt64(ranges.count))]
      let value = jsonText(randomValue(&generator))
      var result = text
      result.insert(contentsOf: "\"\(key)\": \(value), ", at: range.lowerBound)
      return Data(result.utf8)
    default:
      return structural(kind, data, &generator)
    }
    return Data(bytes)
  }

  /// Mutations of the parsed document, written back as JSON; a document that no longer parses
  /// (after an earlier byte mutation) gets a byte mutation instead.
  private static func structural(_ kind: String, _ data: Data, _ generator: inout SplitMix64) -> Data {
    guard
      var customers = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) as? [Any],
      !customers.isEmpty
    else { return apply("insert token", to: data, &generator) }
    func pick(_ count: Int) -> Int { Int(generator.next() % UInt64(max(count, 1))) }
    let index = pick(customers.count)
    var customer = customers[index] as? [String: Any] ?? [:]
    var models = customer["customModels"] as? [Any] ?? []
    let inModel = !models.isEmpty && generator.next() % 2 == 0
    let modelIndex = pick(models.count)
    var model = (inModel ? models[modelIndex] as? [String: Any] : nil) ?? [:]

    switch kind {
    case "remove key":
      if inModel, let key = model.keys.sorted().randomElement(using: &generator) {
        model.removeValue(forKey: key)
      } else if let key = customer.keys.sorted().randomElement(using: &generator) {
        customer.removeValue(forKey: key)
      }
    case "remove entry":
      if inModel {
        models.remove(at: modelIndex)
        customer["customModels"] = models
        customers[index] = customer
      } else {
        customers.remove(at: index)
      }
      return serialize(customers)
    case "duplicate entry":
      if inModel {
        models.append(models[modelIndex])
        customer["customModels"] = models
        customers[index] = customer
      } else {
        customers.insert(customers[index], at: pick(customers.count + 1))
      }
      return serialize(customers)
    case "swap type":
      switch generator.next() % 4 {
      case 0:
        customers[index] = randomValue(&generator)
        return serialize(customers)
      case 1: return serialize(["customers": customers])
      default:
        if inModel, let key = model.keys.sorted().randomElement(using: &generator) {
          model[key] = randomValue(&generator)
        } else if let key = customer.keys.sorted().randomElement(using: &generator) {
          customer[key] = randomValue(&generator)
        }
      }
    case "extreme number":
      let numbers = [
        "1e400", "-0", "0", "1.5", "99999999999999999999", "-9223372036854775809", "9223372036854775807",
        "1E2", "0x10",
      ]
      let keys = ["flowId", "modelVersion"]
      let text = String(decoding: data, as: UTF8.self)
      let key = keys[pick(keys.count)]
      let ranges = text.occurrences(of: "\"\(key)\": ")
      guard !ranges.isEmpty else { return data }
      let start = ranges[pick(ranges.count)].upperBound
      let end = text[start...].firstIndex { !$0.isNumber && $0 != "-" } ?? text.endIndex
      var result = text
      result.replaceSubrange(start..<end, with: numbers[pick(numbers.count)])
      return Data(result.utf8)
    default:
      preconditionFailure("unknown mutation \(kind)")
    }
    if inModel {
      models[modelIndex] = model
      customer["customModels"] = models
    }
    customers[index] = customer
    return serialize(customers)
  }

  static func randomValue(_ generator: inout SplitMix64) -> Any {
    let values: [Any] = [
      NSNull(), true, false, 0, -1, 1.5, "", "x", "ACME", "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10", [Any](),
      [String: Any](), [[[Any]]()], ["a": ["b": NSNull()]], 1e300, "🙂\u{202E}", Int64.max, "../../etc/passwd",
      "line\nbreak \"quoted\" \\ back", String(repeating: "z", count: 5_000), [1, "2", NSNull()],
    ]
    return values[Int(generator.next() % UInt64(values.count))]
  }

  private static func jsonText(_ value: Any) -> String {
    let data =
      (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
      ?? Data("null".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  private static func serialize(_ value: Any) -> Data {
    (try? JSONSerialization.data(
      withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])) ?? Data("[]".utf8)
  }
}

extension String {
  /// Every range of `needle`, left to right, non-overlapping.
  fileprivate func occurrences(of needle: String) -> [Range<String.Index>] {
    var found: [Range<String.Index>] = []
    var start = startIndex
    while let range = range(of: needle, range: start..<endIndex) {
      found.append(range)
      start = range.upperBound
    }
    return found
  }
}
