import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSystem

/// The test binaries a run has proven, by compile key. The first customer of a key builds and
/// tests with `swift test` (and proves the key); the others of that key wait for it, then run
/// its test binary against their own resource bundle, or `swift test` when the proof failed.
/// Under `--skip-tests` the first customer's `swift build` compiles the key's code for all of
/// them: the others differ only in resources, which nothing reads without tests.
final class CompiledTests: @unchecked Sendable {
  /// A key's test binary, copied out of the slot that built it (a slot's next build of another
  /// key overwrites its own), and the name SwiftPM gave the resource bundle.
  struct Binary: Sendable {
    let key: CompileKey
    let executable: URL
    let bundleName: String
    /// The test classes that read the customer's data (`Module.Class`), run for every customer;
    /// the others ran once, in the key's first customer's `swift test`.
    var dataTests: [String] = []
    /// How many tests `dataTests` hold.
    var dataTestCount = 0
    /// How many tests the key's first customer's `swift test` ran: every test of the package,
    /// what a further customer's record counts too (the same with `--full-build`).
    var testCount: Int?
  }

  /// The test modules whose tests read a customer's data: the tests of `ContextSDK`, the only
  /// target with resources (its `Bundle.module` is the only way to them). Every other test
  /// module depends on compiled code only, the same for every customer of a key.
  static let customerDataTestModules: Set<String> = ["ContextSDKTests"]

  /// From `<binary> --list-tests` (`Module.Class/test` lines): the classes of the customer-data
  /// modules, and how many tests they hold.
  static func dataTests(listed: String) -> (classes: [String], count: Int) {
    var classes: Set<String> = []
    var count = 0
    for line in listed.split(separator: "\n") {
      let name = line.trimmingCharacters(in: .whitespaces)
      guard let slash = name.firstIndex(of: "/"), let dot = name.firstIndex(of: "."), dot < slash,
        customerDataTestModules.contains(String(name[..<dot]))
      else { continue }
      classes.insert(String(name[..<slash]))
      count += 1
    }
    return (classes.sorted(), count)
  }

  /// What a customer does with its key.
  enum Claim: Sendable {
    /// The key's first customer: build, test, prove (`resolve` afterwards, whatever happens).
    case prove
    case run(Binary)
    /// The prediction differed: `swift test`, for the reason given.
    case fallBack(String)
    /// Under `--skip-tests`: the customer named built the key in this run.
    case compiled(by: String)
  }

  private enum Entry {
    case proving
    case proven(Binary)
    case fallBack(String)
    case compiled(by: String)
  }

  private let condition = NSCondition()
  private var entries: [CompileKey: Entry] = [:]
  /// Where proven binaries are kept: `<directory>/<key>/`.
  let directory: URL

  init(directory: URL) { self.directory = directory }

  /// What the customer of `key` does; waits while another customer proves the key.
  func claim(_ key: CompileKey) -> Claim {
    condition.lock()
    defer { condition.unlock() }
    while true {
      switch entries[key] {
      case nil:
        entries[key] = .proving
        return .prove
      case .proving: condition.wait()
      case .proven(let binary): return .run(binary)
      case .fallBack(let reason): return .fallBack(reason)
      case .compiled(let customer): return .compiled(by: customer)
      }
    }
  }

  /// Ends a proof: a binary, a reason to fall back, or (`.none`) nothing learnt (the customer
  /// failed on its own account): the next customer of the key proves it. A key once decided
  /// stays so.
  func resolve(_ key: CompileKey, _ outcome: Claim?) {
    condition.lock()
    switch outcome {
    case .run(let binary): entries[key] = .proven(binary)
    case .fallBack(let reason): entries[key] = .fallBack(reason)
    case .compiled(let customer): entries[key] = .compiled(by: customer)
    case .prove, nil:
      if case .proving = entries[key] { entries[key] = nil }
    }
    condition.broadcast()
    condition.unlock()
  }

  /// Copies the test binary out of `slot` after a proven build.
  func keep(_ key: CompileKey, testBinary: URL, bundleName: String) throws -> Binary {
    // Copied, not linked: the slot's next link of the binary may write it in place.
    let destination = directory.appendingPathComponent(key.digest)
    try? FileManager.default.removeItem(at: destination)
    try AtomicFile.createDirectory(destination)
    let executable = destination.appendingPathComponent(testBinary.lastPathComponent)
    do {
      try FileManager.default.copyItem(at: testBinary, to: executable)
    } catch {
      throw SystemError.cannotWrite(path: executable.path, reason: SystemError.reason(error))
    }
    return Binary(key: key, executable: executable, bundleName: bundleName)
  }
}

/// Where SwiftPM put a package's test binary and resource bundles in a built slot.
enum BuildProducts {
  /// `.build/debug`, SwiftPM's link to `.build/<triple>/debug`.
  static func debugDirectory(of package: URL) -> URL {
    package.appendingPathComponent(".build/debug").resolvingSymlinksInPath()
  }

  /// The test binary of a package named `ContextSDK` (`<Package>PackageTests.xctest`, an
  /// executable on Linux).
  static func testBinary(of package: URL, packageName: String = "ContextSDK") -> URL {
    debugDirectory(of: package).appendingPathComponent("\(packageName)PackageTests.xctest")
  }

  /// The name SwiftPM gives the `ContextSDK` target's bundle on Linux
  /// (`<Package>_<Target>.resources`).
  static let bundleName = "ContextSDK_ContextSDK.resources"

  /// The resource bundles beside the binaries (`<Package>_<Target>.resources`).
  static func resourceBundles(of package: URL) -> [URL] {
    let debug = debugDirectory(of: package)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: debug.path)) ?? []
    return names.filter { $0.hasSuffix(".resources") }.sorted().map { debug.appendingPathComponent($0) }
  }
}
