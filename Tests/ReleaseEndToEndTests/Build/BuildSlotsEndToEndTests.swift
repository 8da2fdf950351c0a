import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBuild
@testable import ReleasePipeline

#if canImport(Glibc)
  import Glibc
#endif

/// A warm build slot is only a cache: what a customer's tests see must be that customer's
/// package, whatever an earlier build left in the slot's `.build`.
final class BuildSlotsEndToEndTests: XCTestCase {
  /// SwiftPM copies `Resources/Models` into a resource bundle under `.build` and, in a warm
  /// slot, did not always copy it again: the suite and the benchmark saw a customer tested
  /// against another customer's bundled models (one too many, or its own missing), and after
  /// the tool deleted such a bundle, a build that did not copy it again. Here both are planted:
  /// another model in the bundle the tests read, and the customer's own model gone from it.
  func testACustomerIsTestedAgainstItsOwnModelsWhateverTheSlotHeld() throws {
    let workspace = try Workspace()
    // The warm cache the process's other tests build in: after this test they build on the
    // slot it planted, which the tool must take as it finds it anyway (and a cache of its
    // own would cost a cold build).
    let cache = Workspace.sharedCache
    let arguments = ["customer", "acme", "--jobs", "1", "--cache", cache.path]
    let first = workspace.run(arguments)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)

    let bundles = try resourceBundles(below: cache.appendingPathComponent("slots/0/ContextSDK/.build"))
    XCTAssertFalse(bundles.isEmpty, "the first build made the slot's resource bundle")
    // Planted with the folders' modification times kept, so SwiftPM's build system, which
    // checks an output directory by its metadata, takes the bundle for up to date.
    for bundle in bundles {
      let models = bundle.appendingPathComponent("Models")
      let times = try [bundle, models].map { ($0, try modificationTime(of: $0)) }
      try Data(contentsOf: workspace.file("models/rating_request/31.mlmodel")).write(
        to: models.appendingPathComponent("rating_request_v31.mlmodel"))
      try FileManager.default.removeItem(at: models.appendingPathComponent("paywall_timing_v14.mlmodel"))
      for (url, time) in times { try setModificationTime(of: url, to: time) }
    }

    let again = workspace.run(arguments + ["--force"])
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
  }

  /// A build killed, timed out or failed half-way leaves SwiftPM's and the driver's
  /// incremental state behind; such a slot is built from scratch, and one whose build ended
  /// well is kept warm.
  func testASlotWhoseBuildDidNotEndWellStartsCold() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let slots = BuildSlots(root: root, count: 1)
    let leftover = { (slot: URL) in slot.appendingPathComponent(".build/debug/ContextSDK.build/state") }
    func build(failing: Bool) throws -> Bool {
      try slots.withSlot(directoryName: "P", affinity: "x") { slot in
        let kept = FileManager.default.fileExists(atPath: leftover(slot).path)
        try FileManager.default.createDirectory(
          at: leftover(slot).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("compiled".utf8).write(to: leftover(slot))
        if failing { throw SystemError.processFailed(command: "swift test", exitCode: 1, logPath: nil) }
        return kept
      }
    }
    XCTAssertFalse(try build(failing: false), "a new slot")
    XCTAssertTrue(try build(failing: false), "warm after a build that ended well")
    XCTAssertThrowsError(try build(failing: true))
    XCTAssertFalse(try build(failing: false), "cold after a failed build")
    // Killed: the marker is gone and nothing wrote it again.
    let slot = root.appendingPathComponent("0/P")
    try FileManager.default.removeItem(at: BuildSlots.finishedMarker(in: slot))
    XCTAssertFalse(try build(failing: false), "cold after a build that never finished")
    XCTAssertTrue(try build(failing: false))
  }

  func testASlotIsTakenByTheFeatureSetItLastBuilt() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let slots = BuildSlots(root: root, count: 2)
    let take = { (affinity: String) in try slots.withSlot(directoryName: "P", affinity: affinity) { $0.path }
    }
    let conversion = try take("ContextSDKConversion")
    let att = try take("ContextSDKATT")
    XCTAssertNotEqual(att, conversion, "an unused slot, not the one warm for conversion")
    XCTAssertEqual(try take("ContextSDKConversion"), conversion)
    XCTAssertEqual(try take("ContextSDKATT"), att)
    XCTAssertEqual(try take("ContextSDKATT"), att)
    // Neither matches: the slot used longest ago.
    XCTAssertEqual(try take("ContextSDKATT ContextSDKConversion"), conversion)
  }

  /// A warm slot's bundle holds the previous customer's models and configuration: after the
  /// refresh it holds exactly this package's, whatever SwiftPM's copy step decides.
  func testABundleIsMadeToHoldExactlyThePackagesModelsAndConfiguration() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let resources = root.appendingPathComponent("Resources")
    let bundle = root.appendingPathComponent(
      ".build/x86_64-unknown-linux-gnu/debug/ContextSDK_ContextSDK.resources")
    let unrelated = root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug/other.txt")
    for (url, text) in [
      (resources.appendingPathComponent("Models/a_v1.mlmodel"), "a"),
      (resources.appendingPathComponent("Models/b_v2.mlmodel"), "b"),
      (resources.appendingPathComponent("customer.json"), #"{"appID": "this customer"}"#),
      (bundle.appendingPathComponent("Models/a_v1.mlmodel"), "stale a"),
      (bundle.appendingPathComponent("Models/c_v3.mlmodel"), "another customer's"),
      (bundle.appendingPathComponent("customer.json"), #"{"appID": "the slot's last customer"}"#),
      (unrelated, "kept"),
    ] {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }

    try BuildSlots.refreshResourceBundles(resources: resources, below: root.appendingPathComponent(".build"))

    let bundled = try FileManager.default.contentsOfDirectory(
      atPath: bundle.appendingPathComponent("Models").path)
    XCTAssertEqual(bundled.sorted(), ["a_v1.mlmodel", "b_v2.mlmodel"])
    for name in bundled.map({ "Models/\($0)" }) + ["customer.json"] {
      XCTAssertEqual(
        try Data(contentsOf: bundle.appendingPathComponent(name)),
        try Data(contentsOf: resources.appendingPathComponent(name)), name)
    }
    XCTAssertEqual(try String(contentsOf: unrelated, encoding: .utf8), "kept")
  }

  /// The Swift driver on Linux reads a source's modification time to the second
  /// (swift-driver's `lastModificationTime`: the seconds, `nanoseconds: 0`) and skips a file
  /// whose time equals the one its last build recorded. A registry mirrored into a slot within
  /// the second its predecessor was written in was never compiled: the suite saw acme tested
  /// against the one-model registry of the customer the slot built just before. So a file the
  /// mirror replaces never keeps its predecessor's second; a file whose bytes are the same
  /// keeps its time, so it stays up to date.
  func testAReplacedFileNeverHasTheSecondOfTheFileItReplaces() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let source = root.appendingPathComponent("package")
    let slot = root.appendingPathComponent("slot")
    for directory in [source, slot] {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    // The predecessors are written early in a second, so the mirror runs within the same one.
    try waitForTheStartOfASecond()
    for (name, old, new) in [("Registry.swift", "one model", "two models"), ("Same.swift", "same", "same")] {
      try Data(old.utf8).write(to: slot.appendingPathComponent(name))
      try Data(new.utf8).write(to: source.appendingPathComponent(name))
    }
    let before = try ["Registry.swift", "Same.swift"].map {
      try modificationTime(of: slot.appendingPathComponent($0))[1]
    }

    try BuildSlots.mirror(source, into: slot)

    let registry = try modificationTime(of: slot.appendingPathComponent("Registry.swift"))[1]
    XCTAssertEqual(
      try String(contentsOf: slot.appendingPathComponent("Registry.swift"), encoding: .utf8), "two models")
    XCTAssertNotEqual(
      registry.tv_sec, before[0].tv_sec, "the driver would take the new registry for compiled")
    let same = try modificationTime(of: slot.appendingPathComponent("Same.swift"))[1]
    XCTAssertEqual(
      [same.tv_sec, same.tv_nsec], [before[1].tv_sec, before[1].tv_nsec], "an unchanged file keeps its time")

    // A file removed (a feature the next customer lacks) and written again at once: the
    // driver's record of its module may still hold the second it had.
    try FileManager.default.removeItem(at: source.appendingPathComponent("Registry.swift"))
    try BuildSlots.mirror(source, into: slot)
    XCTAssertFalse(FileManager.default.fileExists(atPath: slot.appendingPathComponent("Registry.swift").path))
    try Data("three models".utf8).write(to: source.appendingPathComponent("Registry.swift"))
    try BuildSlots.mirror(source, into: slot)
    let again = try modificationTime(of: slot.appendingPathComponent("Registry.swift"))[1]
    XCTAssertGreaterThan(again.tv_sec, registry.tv_sec, "a later second than any the slot was given")
  }

  /// The same, end to end with the real driver: a package built once with a source whose
  /// recorded time is a second `s`, then that source replaced by the mirror during `s`; the
  /// next build must compile the new bytes.
  func testTheDriverCompilesASourceReplacedWithinTheSecondItsLastBuildRecorded() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let package = root.appendingPathComponent("package")
    let slot = root.appendingPathComponent("slot")
    func write(value: Int) throws {
      let files = [
        "Package.swift": """
        // swift-tools-version:5.9
        import PackageDescription
        let package = Package(name: "Probe", targets: [.executableTarget(name: "Probe")])

        """,
        "Sources/Probe/main.swift": "print(value)\n",
        "Sources/Probe/Value.swift": "let value = \(value)\n",
      ]
      for (path, text) in files {
        let url = package.appendingPathComponent(path)
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
      }
    }
    func buildAndRun() throws -> String {
      let runner = SystemProcessRunner()
      let build = try SharedModuleCache.swift(["build"], in: slot)
      XCTAssertEqual(build.exitCode, 0, build.standardOutput + build.standardError)
      let binary = slot.appendingPathComponent(".build/debug/Probe")
      return try runner.run(ProcessInvocation(binary.path, [], in: slot)).standardOutput
    }
    try write(value: 1)
    try BuildSlots.mirror(package, into: slot)
    XCTAssertEqual(try buildAndRun(), "1\n")

    // The slot's source gets a time a few seconds ahead, and a build records it.
    let value = slot.appendingPathComponent("Sources/Probe/Value.swift")
    let second = Int(Date().timeIntervalSince1970) + 6
    try setModificationTime(
      of: value, to: [timespec(tv_sec: second, tv_nsec: 0), timespec(tv_sec: second, tv_nsec: 0)])
    XCTAssertEqual(try buildAndRun(), "1\n")
    let now = Date().timeIntervalSince1970
    guard now < Double(second) else {
      return XCTFail("the second build took until \(now), past the recorded second \(second)")
    }
    usleep(useconds_t((Double(second) - now + 0.05) * 1_000_000))

    try write(value: 2)
    try BuildSlots.mirror(package, into: slot)
    XCTAssertEqual(try buildAndRun(), "2\n", "the new source was compiled")
  }

  /// Sleeps until the wall clock is in the first half of a second.
  private func waitForTheStartOfASecond() throws {
    let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
    if fraction > 0.4 { usleep(useconds_t((1.01 - fraction) * 1_000_000)) }
  }

  /// Access and modification time, to the nanosecond: Foundation's file attributes round them,
  /// and any change is noticed.
  private func modificationTime(of url: URL) throws -> [timespec] {
    var status = stat()
    guard stat(url.path, &status) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    return [status.st_atim, status.st_mtim]
  }

  private func setModificationTime(of url: URL, to time: [timespec]) throws {
    var times = time
    guard utimensat(AT_FDCWD, url.path, &times, 0) == 0 else {
      throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
  }

  private func resourceBundles(below build: URL) throws -> [URL] {
    let paths =
      FileManager.default.enumerator(atPath: build.path)?.allObjects.compactMap { $0 as? String } ?? []
    return paths.filter { $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") }.map {
      build.appendingPathComponent($0)
    }
  }
}
