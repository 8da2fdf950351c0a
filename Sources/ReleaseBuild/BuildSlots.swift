import Foundation
import ReleaseGeneration
import ReleasePipeline
import ReleaseSystem

/// Warm build directories reused across customers.
///
/// Every customer's package shares the SDK core and differs only in its per-customer module,
/// so a package built at a fixed path and then overwritten with the next customer's files
/// recompiles only that module instead of the whole package (figures in
/// docs/performance.md). One slot per parallel job; a slot is used by one job at a time.
/// The archive is always made from the freshly generated tree, never from a slot, so what
/// ships is identical to a cold build's input.
final class BuildSlots: Sendable {
  private let root: URL
  /// Slot numbers not in use, each with the affinity of the package it last built;
  /// `available` counts them, so taking one never finds the list empty.
  private let free: Locked<[(slot: Int, affinity: String?)]>
  private let available: DispatchSemaphore

  /// Clang and Swift module caches shared by every slot: a slot's first build reuses the
  /// modules another slot built instead of compiling them again. `<root>/module-cache` unless
  /// the run names another (`CLANG_MODULE_CACHE_PATH`, see `moduleCache(environment:resolve:)`).
  let moduleCache: URL

  /// How many customers of one feature set must be left for a slot warm for another set to
  /// switch and share them with the slot already on them. A switch costs a warm slot a new
  /// build plan and the `ContextSDK` module, test discovery and test binary built again, about
  /// as much as four warm customers (docs/performance.md); sharing `n` customers saves the
  /// other slot `n / 2` of them.
  static let customersWorthASwitch = 8

  init(root: URL, count: Int, moduleCache: URL? = nil) {
    self.root = root
    self.moduleCache = moduleCache ?? root.appendingPathComponent("module-cache")
    self.free = Locked((0..<max(1, count)).reversed().map { ($0, nil) })
    self.available = DispatchSemaphore(value: max(1, count))
  }

  /// The module cache `CLANG_MODULE_CACHE_PATH` names, the variable clang and swiftc read for
  /// it, resolved against the project root (the compilers would resolve it against the slot);
  /// nil when it is unset or empty. Such a cache is shared with every other cache directory and
  /// build that names it: the system modules (Glibc, Foundation's and XCTest's C modules) are
  /// compiled once on the machine instead of once per cache directory. The compilers write it
  /// under a lock and a rename, so builds of several runs share it safely.
  static func moduleCache(environment: [String: String], resolve: (String) -> URL) -> URL? {
    guard let path = environment["CLANG_MODULE_CACHE_PATH"], !path.isEmpty else { return nil }
    return resolve(path)
  }

  /// Runs `body` with exclusive use of a slot directory (`<root>/<k>/<directoryName>`),
  /// preferring a free slot whose last package had the same `affinity` (its feature set),
  /// else one never used, else the one used longest ago: switching a slot to another set of
  /// modules costs SwiftPM a new build plan and the modules that slot has not built yet.
  func withSlot<T>(directoryName: String, affinity: String, _ body: (URL) throws -> T) throws -> T {
    available.wait()
    let slot = free.withLock { free in
      let index =
        free.lastIndex { $0.affinity == affinity } ?? free.lastIndex { $0.affinity == nil } ?? free.startIndex
      return free.remove(at: index).slot
    }
    defer {
      free.withLock { $0.append((slot, affinity)) }
      available.signal()
    }
    let directory = root.appendingPathComponent(String(slot)).appendingPathComponent(directoryName)
    try AtomicFile.createDirectory(directory)
    try Self.discardUnfinishedBuild(in: directory)
    // Only a build that ended well leaves a slot to be trusted by the next one.
    let finished = { try AtomicFile.write(Data(), to: Self.finishedMarker(in: directory), durable: false) }
    do {
      let result = try body(directory)
      try finished()
      return result
    } catch let failed as FailedAfterBuilding {
      try finished()
      throw failed.failure
    }
  }

  /// Thrown by a slot's work when the package built and what ran after the build failed (its
  /// tests): the build state is whole, so the slot stays warm for the next package, and
  /// `withSlot` throws `failure`.
  struct FailedAfterBuilding: Error {
    let failure: Error
  }

  /// Written into a slot's `.build` after a build that succeeded, removed before each build.
  static func finishedMarker(in directory: URL) -> URL {
    directory.appendingPathComponent(".build/slot-finished")
  }

  /// A slot whose last build did not end well (killed, timed out, failed to compile) is built
  /// from scratch: what a build stopped half-way leaves of SwiftPM's and the driver's
  /// incremental state is not worth reasoning about when a cold build costs seconds, and only a
  /// customer after a failure pays them. A package that built and then failed its tests left a
  /// whole build (`FailedAfterBuilding`), and its slot stays warm.
  static func discardUnfinishedBuild(in directory: URL) throws {
    let fileManager = FileManager.default
    let build = directory.appendingPathComponent(".build")
    let marker = finishedMarker(in: directory)
    do {
      if fileManager.fileExists(atPath: build.path) && !fileManager.fileExists(atPath: marker.path) {
        try fileManager.removeItem(at: build)
      } else if fileManager.fileExists(atPath: marker.path) {
        try fileManager.removeItem(at: marker)
      }
    } catch {
      throw SystemError.cannotWrite(path: build.path, reason: SystemError.reason(error))
    }
  }

  /// Makes `destination` hold exactly the files of `source`, leaving `.build` alone and not
  /// touching files whose bytes are already the same (their modification times then stay
  /// old, so SwiftPM's incremental build sees them unchanged); then makes the resource bundles
  /// an earlier build left in `.build` hold exactly this package's models.
  ///
  /// Every file it writes gets a modification time in a whole second later than the file it
  /// replaces and than any second it gave before in this slot. The Swift driver on Linux
  /// reads a source's time to the second (swift-driver's `lastModificationTime`: the seconds,
  /// `nanoseconds: 0`) and skips a file whose time equals the one its last build recorded: a
  /// registry written within the second of the one before it was never compiled, and the
  /// suite saw acme's tests run against the registry of the customer the slot built before.
  /// The last second given is kept in `.build`, so it is gone exactly when the driver's
  /// records are; it covers a file removed and written again later.
  ///
  /// Without `refreshBundles`, the resource bundles are removed instead, so that what the build
  /// leaves there is SwiftPM's own copy (the proof of a compile key, see `SwiftBuildStep`).
  static func mirror(_ source: URL, into destination: URL, refreshBundles: Bool = true) throws {
    let lastSecondFile = destination.appendingPathComponent(".build/slot-mirror-second")
    let lastSecond = (try? String(contentsOf: lastSecondFile, encoding: .utf8)).flatMap { Int($0) } ?? 0
    let latest = try mirrorFiles(
      from: source, into: destination, notBefore: max(Int(Date().timeIntervalSince1970), lastSecond + 1))
    if let latest { try AtomicFile.write(Data(String(latest).utf8), to: lastSecondFile, durable: false) }
    let build = destination.appendingPathComponent(".build")
    if refreshBundles {
      try refreshResourceBundles(
        resources: destination.appendingPathComponent(PackageGenerator.resourcesDirectory), below: build)
    } else {
      for bundle in resourceBundles(below: build) {
        do {
          try FileManager.default.removeItem(at: bundle)
        } catch {
          throw SystemError.cannotWrite(path: bundle.path, reason: SystemError.reason(error))
        }
      }
    }
  }

  /// The resource bundles an earlier build copied into `.build` (`<package>_<target>.resources`
  /// on Linux, `.bundle` on Apple platforms; only the `ContextSDK` target has resources) are
  /// made to hold exactly this package's `resources`: the `Models` folder and `customer.json`.
  /// SwiftPM's build system checks a folder's copy by the folder's metadata: in a warm slot it
  /// kept another customer's models (a customer's tests saw a model too many or missed its
  /// own), and after such a bundle was deleted it did not always copy it again (the suite saw
  /// a customer's bundle missing). So the tool does not rely on it either way: whatever SwiftPM
  /// decides, the bundle a customer's tests read holds that customer's resources.
  static func refreshResourceBundles(resources: URL, below build: URL) throws {
    // A bundle may hold files of SwiftPM's own beside the resources (`Info.plist` on Apple
    // platforms): only what is under the resources' own top-level names is the tool's.
    let names = Set((try? FileManager.default.contentsOfDirectory(atPath: resources.path)) ?? [])
    for bundle in resourceBundles(below: build) {
      try mirrorFiles(from: resources, into: bundle) { path in
        names.contains(String(path.prefix { $0 != "/" }))
      }
    }
  }

  /// The resource bundles in `.build/<triple>/<configuration>/` (`.build/debug` is a link to
  /// one of them).
  private static func resourceBundles(below build: URL) -> [URL] {
    let fileManager = FileManager.default
    func entries(_ directory: URL) -> [URL] {
      ((try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []).map {
        directory.appendingPathComponent($0)
      }
    }
    let triples = entries(build).filter {
      (try? $0.resourceValues(forKeys: [.isSymbolicLinkKey]).isSymbolicLink) == false
    }
    return triples.flatMap(entries).flatMap(entries).filter {
      $0.lastPathComponent.hasSuffix(".resources") || $0.lastPathComponent.hasSuffix(".bundle")
    }
  }

  /// Files of `destination` that `source` lacks are removed where `owned` says the path (relative)
  /// is the mirror's. With `notBefore` (seconds since 1970), each file written gets a
  /// modification time of a whole second, that one or one past the replaced file's, and the
  /// latest such second is returned; nil when nothing was written.
  @discardableResult
  private static func mirrorFiles(
    from source: URL, into destination: URL, notBefore: Int? = nil, owned: (String) -> Bool = { _ in true }
  ) throws -> Int? {
    let fileManager = FileManager.default
    let wanted = Set(try PackageFiles.relative(in: source))
    var latest: Int?
    do {
      for existing in try PackageFiles.relative(in: destination)
      where !wanted.contains(existing) && owned(existing) {
        try fileManager.removeItem(at: destination.appendingPathComponent(existing))
      }
      for path in wanted.sorted() {
        let from = source.appendingPathComponent(path)
        let to = destination.appendingPathComponent(path)
        if fileManager.contentsEqual(atPath: from.path, andPath: to.path) { continue }
        let replaced = (try? fileManager.attributesOfItem(atPath: to.path)[.modificationDate] as? Date)
          .map { Int($0.timeIntervalSince1970.rounded(.down)) }
        try AtomicFile.createDirectory(to.deletingLastPathComponent())
        try? fileManager.removeItem(at: to)
        try fileManager.copyItem(at: from, to: to)
        if let notBefore {
          let second = max(notBefore, replaced.map { $0 + 1 } ?? notBefore)
          try fileManager.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: Double(second))], ofItemAtPath: to.path)
          latest = max(latest ?? second, second)
        }
      }
      return latest
    } catch let error as SystemError {
      throw error
    } catch {
      throw SystemError.cannotWrite(path: destination.path, reason: SystemError.reason(error))
    }
  }
}
