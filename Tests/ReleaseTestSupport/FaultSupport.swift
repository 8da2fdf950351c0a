import Foundation
import ReleaseArchive
import ReleasePipeline
import ReleaseSystem
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

package enum FaultFixtures {
  package static let folder = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/Faults")
  package static let invalidManifests = RepositoryRoot.url.appendingPathComponent(
    "Tests/Fixtures/Manifests/Invalid")

  /// An expectation file's lines: every line except blank ones and `#` comments (the format of
  /// `Tests/Fixtures/Manifests/README.md`).
  package static func expectedLines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).filter {
      !$0.hasPrefix("#")
    }
  }
}

/// The finished `release` executable in its own process: its exit status or the signal that
/// ended it, both streams, and whether the test had to kill it.
package struct BinaryRun {
  package var exitCode: Int32
  /// The signal that terminated the process, nil when it exited.
  package var signal: Int32?
  package var standardOutput: String
  package var standardError: String
  package var timedOut: Bool
  package var seconds: Double

  package var allOutput: String {
    "exit \(exitCode) signal \(signal.map(String.init) ?? "-")\n" + standardOutput + standardError
  }
  package var standardErrorLines: [String] { standardError.split(separator: "\n").map(String.init) }
}

/// A running `release` (or any program). Output goes to files, so no pipe can fill and block
/// the child, and the test can read it after a SIGKILL.
package final class RunningBinary {
  package let process = Process()
  private let outputFile: URL
  private let errorFile: URL
  private let started = Date()

  package init(
    _ arguments: [String], in directory: URL, environment: [String: String],
    executable: URL = ReleaseBinary.url
  ) throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-io-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    outputFile = scratch.appendingPathComponent("stdout")
    errorFile = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: outputFile)
    process.standardError = try FileHandle(forWritingTo: errorFile)
    try process.run()
  }

  package var pid: Int32 { process.processIdentifier }
  package var isRunning: Bool { process.isRunning }

  /// Waits up to `timeout` seconds; past it the process is SIGKILLed and the run marked timed out.
  package func wait(timeout: Double) -> BinaryRun {
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while process.isRunning {
      if Date() >= deadline {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
        break
      }
      usleep(10_000)
    }
    process.waitUntilExit()
    let signalled = process.terminationReason == .uncaughtSignal
    let run = BinaryRun(
      exitCode: process.terminationStatus, signal: signalled ? process.terminationStatus : nil,
      standardOutput: (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "",
      standardError: (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "",
      timedOut: timedOut, seconds: Date().timeIntervalSince(started))
    try? FileManager.default.removeItem(at: outputFile.deletingLastPathComponent())
    return run
  }
}

extension RunningBinary {
  /// Waits, while the process runs and at most `timeout` seconds, until it has reached the
  /// pause point whose gate directory (`RELEASE_PAUSE_GATE`) is `gate`; whether it has.
  package func reachedPausePoint(gate: URL, timeout: Double) -> Bool {
    func reached() -> Bool {
      ((try? FileManager.default.contentsOfDirectory(atPath: gate.path)) ?? []).contains {
        $0.hasPrefix("reached-")
      }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while !reached() && isRunning && Date() < deadline { usleep(20_000) }
    return reached()
  }

  /// Waits, while the process runs and at most `timeout` seconds, until its `swift build` or
  /// `swift test` has reached the gate of `shims`; whether it has.
  package func reachedGate(of shims: ProgramShims, timeout: Double = 120) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !shims.reached && isRunning && Date() < deadline { usleep(20_000) }
    return shims.reached
  }
}

extension ReleaseBinary {
  /// The test process's environment as a CI job would have it: plain output, no GitHub
  /// annotations, no fault point, plus `extra`.
  package static func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = RememberedSwiftVersion.path(before: environment["PATH"] ?? "/usr/bin:/bin")
    environment["CI"] = "true"
    environment.removeValue(forKey: "GITHUB_ACTIONS")
    environment.removeValue(forKey: "RELEASE_KILL_AT")
    return environment.merging(extra) { $1 }
  }

  package static func run(
    _ arguments: [String], in directory: URL, environment extra: [String: String] = [:], timeout: Double = 300
  ) throws -> BinaryRun {
    try RunningBinary(arguments, in: directory, environment: environment(extra)).wait(timeout: timeout)
  }
}

/// A directory of stand-ins for `swift` and `git` put first on PATH: each records its
/// environment (when `RELEASE_TEST_ENV_DUMP` names a directory) and, on Linux, the environment
/// block of the process that started it (`/proc/$PPID/environ`, into `environmentDumps` as
/// `<program>-parent-<pid>.env`, whatever environment it was given) and, for `swift build` or
/// `swift test`, waits at a gate (when `RELEASE_TEST_GATE` names one) until the test opens it,
/// then runs the real program; or until the test aborts it, then fails. With `compiles` false,
/// `swift build` and `swift test` succeed after the gate without compiling anything, for tests
/// of what happens around a build rather than of the build (every other call runs the real
/// program). A stand-in `swift` answers `swift --version` from memory (`RememberedSwiftVersion`).
package final class ProgramShims {
  package let directory: URL
  package let gate: URL
  package let environmentDumps: URL

  package init(_ programs: [String] = ["swift"], compiles: Bool = true) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-shims-\(UUID().uuidString)")
    gate = directory.appendingPathComponent("gate")
    environmentDumps = directory.appendingPathComponent("environments")
    for folder in [directory, gate, environmentDumps] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    for program in programs {
      guard let real = SystemProcessRunner.find(program) else {
        throw SystemError.programNotFound(name: program)
      }
      let script = """
        #!/bin/sh
        if [ -n "$RELEASE_TEST_ENV_DUMP" ]; then env > "$RELEASE_TEST_ENV_DUMP/\(program)-$$.env"; fi
        if [ -r "/proc/$PPID/environ" ]; then
          tr '\\000' '\\n' < "/proc/$PPID/environ" > "\(environmentDumps.path)/\(program)-parent-$$.env"
        fi
        if [ -n "$RELEASE_TEST_GATE" ] && { [ "$1" = build ] || [ "$1" = test ]; }; then
          touch "$RELEASE_TEST_GATE/reached"
          i=0
          while [ ! -e "$RELEASE_TEST_GATE/open" ] && [ $i -lt 2400 ]; do
            if [ -e "$RELEASE_TEST_GATE/abort" ]; then exit 70; fi
            sleep 0.05; i=$((i+1))
          done
        fi
        \(program == "swift" ? RememberedSwiftVersion.shellAnswer : "")\
        \(compiles ? "" : #"if [ "$1" = build ] || [ "$1" = test ]; then echo "Build complete!"; exit 0; fi"#)
        exec "\(real.path)" "$@"

        """
      let url = directory.appendingPathComponent(program)
      try script.write(to: url, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  package var path: String {
    directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
  }
  package var reached: Bool {
    FileManager.default.fileExists(atPath: gate.appendingPathComponent("reached").path)
  }
  package func open() {
    _ = FileManager.default.createFile(atPath: gate.appendingPathComponent("open").path, contents: nil)
  }
  /// Ends a waiting stand-in without running the real program (its parent was killed).
  package func abort() {
    _ = FileManager.default.createFile(atPath: gate.appendingPathComponent("abort").path, contents: nil)
  }
}

/// What `dist/` may hold at any moment, even right after a SIGKILL: complete releases under
/// final names, and hidden temporaries (`.<name>.tmp-<pid>-<id>`) that nothing reads.
package enum DistInspection {
  /// Every way `dist` breaks that rule; empty when it holds.
  package static func problems(in dist: URL) -> [String] {
    var problems: [String] = []
    let fileManager = FileManager.default
    guard let enumerator = fileManager.enumerator(atPath: dist.path) else { return [] }
    var releaseDirectories: [String] = []
    while let path = enumerator.nextObject() as? String {
      let components = path.split(separator: "/").map(String.init)
      if components.contains(where: isTemporary) {
        continue
      }
      let type = enumerator.fileAttributes?[.type] as? FileAttributeType
      switch (components.count, type) {
      case (1, .typeDirectory?), (2, .typeDirectory?):
        if components.count == 2 && components[0] != "logs" { releaseDirectories.append(path) }
      case (1, .typeRegular?) where components[0] == "artifacts.json":
        let data = (try? Data(contentsOf: dist.appendingPathComponent(path))) ?? Data()
        if (try? JSONDecoder().decode(ArtifactList.self, from: data)) == nil {
          problems.append("artifacts.json is incomplete or not an artifact list")
        }
      case (1, .typeRegular?) where [".release.lock", "report.xml"].contains(components[0]):
        if components[0] == "report.xml" {
          let text = (try? String(contentsOf: dist.appendingPathComponent(path), encoding: .utf8)) ?? ""
          if !text.hasSuffix("</testsuites>\n") { problems.append("report.xml is incomplete") }
        }
      case (2, .typeRegular?) where components[0] == "logs" && components[1].hasSuffix(".log"):
        break
      case (3, .typeRegular?) where components[0] != "logs":
        break  // checked with its release directory
      default:
        problems.append("\(path): unexpected \(type.map { "\($0.rawValue)" } ?? "entry") under a final name")
      }
    }
    for path in releaseDirectories { problems += releaseProblems(dist.appendingPathComponent(path), path) }
    return problems
  }

  /// A release directory must hold exactly the zip, its `.sha256` and `release.json`, all
  /// agreeing, and the zip must be a safe archive.
  package static func releaseProblems(_ directory: URL, _ name: String) -> [String] {
    let files = Set(
      ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
        !isTemporary($0)
      })
    guard let record = try? ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
    else {
      return ["\(name): no readable release.json (holds \(files.sorted()))"]
    }
    var problems: [String] = []
    let zipName = record.artifact.file
    let expected: Set = [zipName, zipName + ".sha256", ReleaseRecord.fileName]
    if files != expected {
      problems.append("\(name): holds \(files.sorted()), expected \(expected.sorted())")
    }
    let zip = directory.appendingPathComponent(zipName)
    guard let (sha256, size) = try? SHA256Digest.hexAndSize(ofFileAt: zip) else {
      return problems + ["\(name): \(zipName) unreadable"]
    }
    if sha256 != record.artifact.sha256 || size != record.artifact.size {
      problems.append("\(name): \(zipName) does not match release.json")
    }
    let line =
      (try? String(contentsOf: directory.appendingPathComponent(zipName + ".sha256"), encoding: .utf8)) ?? ""
    if line != "\(sha256)  \(zipName)\n" {
      problems.append("\(name): \(zipName).sha256 does not match the zip")
    }
    problems += ZipReader.safetyProblems(of: zip).map { "\(name): \($0)" }
    return problems
  }

  /// `dist/artifacts.json` as `WriteArtifactListStep` writes it, read here to tell a complete
  /// list from a torn one.
  private struct ArtifactList: Decodable {
    struct Entry: Decodable {
      var customer, version, kind, path, sha256: String
      var size: Int64
    }
    var artifacts: [Entry]
  }

  /// Hidden temporaries anywhere below `directory` (relative paths).
  package static func temporaries(in directory: URL) -> [String] {
    let all = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String]) ?? []
    return all.filter { $0.split(separator: "/").last.map { isTemporary(String($0)) } ?? false }.sorted()
  }

  /// `AtomicFile.temporarySibling`'s names: `.<name>.tmp-<pid>-<8 characters>`.
  package static func isTemporary(_ name: String) -> Bool {
    name.hasPrefix(".")
      && name.range(of: #"\.tmp-[0-9]+-[0-9A-Za-z]{8}$"#, options: .regularExpression) != nil
  }
}

/// SplitMix64 (Steele, Lea and Flood 2014; the reference code is Vigna's): a tiny seeded
/// generator, so every mutation run is the same run.
package struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  package init(seed: UInt64) { state = seed }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Zips written by Python's zipfile (an independent producer), with options a correct writer
/// never uses: any entry name, any mode (symbolic links), a lying size in the headers.
package enum CraftedZip {
  package struct Entry: Encodable {
    package var name: String
    /// Base64 of the data.
    package var data: String
    package var mode = 0o100644
    package var deflate = false
    package var declaredSize: Int64?

    package enum CodingKeys: String, CodingKey {
      case name, mode, deflate, declaredSize
      case data = "data_base64"
    }

    package init(
      name: String, data: Data, mode: Int = 0o100644, deflate: Bool = false, declaredSize: Int64? = nil
    ) {
      self.name = name
      self.data = data.base64EncodedString()
      self.mode = mode
      self.deflate = deflate
      self.declaredSize = declaredSize
    }
  }

  /// Tests/Fixtures/Archives/make_zip.py, shared with the archive tests.
  package static let script = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/Archives/make_zip.py")
    .path

  package static func write(_ entries: [Entry], to zip: URL) throws {
    try FileManager.default.createDirectory(
      at: zip.deletingLastPathComponent(), withIntermediateDirectories: true)
    let spec = zip.deletingLastPathComponent().appendingPathComponent(".spec-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: spec) }
    try JSONEncoder().encode(entries).write(to: spec)
    let result = try SystemProcessRunner().run(
      ProcessInvocation("python3", [script, zip.path, spec.path]))
    guard result.exitCode == 0 else {
      throw SystemError.processFailed(
        command: "python3 (make a zip): \(result.standardError)", exitCode: result.exitCode, logPath: nil)
    }
  }

  /// Every entry of a real zip (files and directories, in order) as `Entry` values.
  package static func entries(of zip: URL) throws -> [Entry] {
    var data: [String: Data] = [:]
    try ZipReader.forEachFile(in: zip) { entry, contents in
      var bytes = Data()
      try contents.forEachBlock { bytes.append(contentsOf: $0) }
      data[entry.path] = bytes
    }
    return try ZipReader.entries(of: zip).map { entry in
      entry.kind == .directory
        ? Entry(name: entry.path, data: Data(), mode: 0o40755)
        : Entry(
          name: entry.path, data: data[entry.path] ?? Data(), deflate: !entry.path.hasSuffix(".mlmodel"))
    }
  }
}

/// Every regular file below `directory` whose bytes contain one of `needles` (relative path →
/// the needles found), skipping directories named in `skipping` (a build directory).
package func filesContaining(_ needles: [String], under directory: URL, skipping: Set<String> = [])
  -> [String:
  [String]]
{
  var found: [String: [String]] = [:]
  guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return found }
  let patterns = needles.map { Data($0.utf8) }
  while let path = enumerator.nextObject() as? String {
    if skipping.contains((path as NSString).lastPathComponent),
      enumerator.fileAttributes?[.type] as? FileAttributeType == .typeDirectory
    {
      enumerator.skipDescendants()
      continue
    }
    guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular,
      let data = try? Data(contentsOf: directory.appendingPathComponent(path))
    else { continue }
    let hits = zip(needles, patterns).filter { data.range(of: $0.1) != nil }.map(\.0)
    if !hits.isEmpty { found[path] = hits }
  }
  return found
}
