import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleasePipeline
@testable import ReleaseVerification

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// `release verify` handed malicious archives, each the artifact of an otherwise valid
/// release directory (a real release.json whose artifact name, SHA-256 and size are fixed up,
/// so only the archive's content is wrong): zip-slip paths, absolute paths, symbolic links,
/// lying and absurd sizes, too many entries. Each is refused with the problem named, no
/// process is started and nothing is written anywhere, not even by the extraction `verify`
/// would do for a build (tried directly). A real package of another customer renamed into a
/// release directory is named by its foreign models.
final class VerifyMaliciousArchiveEndToEndTests: XCTestCase {
  /// One release of acme and bluebird for the whole class. Nothing here builds a package (each
  /// verify is `--no-build` or refused before its build), so the release run's `swift build` is
  /// a stand-in that succeeds without compiling, in a cache of its own (outside the workspace,
  /// whose every file the tests compare): the archives are the generated packages either way.
  static let built: Result<(workspace: Workspace, run: Workspace.Run), Error> = Result {
    let workspace = try Workspace()
    let shims = try ProgramShims(["swift"], compiles: false)
    let cache = try TemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: shims.directory) }
    let run = workspace.run(
      ["customer", "acme", "bluebird", "--skip-tests", "--jobs", "1", "--cache", cache.url.path],
      environment: ["PATH": shims.path])
    atexit {
      if case .success(let built) = VerifyMaliciousArchiveEndToEndTests.built {
        try? FileManager.default.removeItem(at: built.workspace.root)
      }
    }
    return (workspace, run)
  }

  private func fixture() throws -> Workspace {
    let (workspace, run) = try Self.built.get()
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    return workspace
  }

  private let acmeRelease = "dist/acme/\(firstVersion)"
  private let acmeZip = "ContextSDK_Acme-\(firstVersion).zip"

  /// `<root>/evil/<name>/acme/<version>/` holding `zip` as acme's artifact, its `.sha256`, and acme's
  /// real release.json with the artifact's SHA-256 and size set to the zip's.
  private func releaseDirectory(_ name: String, zip: URL, in workspace: Workspace) throws -> URL {
    let directory = workspace.file("evil/\(name)/acme/\(firstVersion)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: zip, to: directory.appendingPathComponent(acmeZip))
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: zip)
    try "\(sha256)  \(acmeZip)\n".write(
      to: directory.appendingPathComponent(acmeZip + ".sha256"), atomically: true, encoding: .utf8)
    var record = try ReleaseRecord.load(from: workspace.file("\(acmeRelease)/release.json"))
    record.artifact.sha256 = sha256
    record.artifact.size = size
    try record.encoded().write(to: directory.appendingPathComponent("release.json"))
    return directory
  }

  private struct VerifyRun {
    var code: Int32
    var standardOutput: [String]
    var standardError: [String]
    var invocations: [ProcessInvocation]
    var all: String { (standardOutput + standardError).joined(separator: "\n") }
  }

  /// `release verify` in this process, with a runner that fails the test on any process.
  private func verify(_ arguments: [String], in workspace: Workspace) -> VerifyRun {
    let output = CapturedOutput()
    let runner = ScriptedProcessRunner()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: workspace.root, environment: ["CI": "true"],
      output: output)
    let code = CommandLineInterface.main(arguments: ["verify"] + arguments, services: services)
    return VerifyRun(
      code: code, standardOutput: output.standardOutput, standardError: output.standardError,
      invocations: runner.invocations)
  }

  /// Names in the temporary directory and the filesystem root that carry the marker.
  private func marked(_ marker: String) -> [String] {
    Set(
      ["/tmp", FileManager.default.temporaryDirectory.path, "/"].map {
        URL(fileURLWithPath: $0).standardizedFileURL.path
      }
    )
    .sorted().flatMap { directory in
      ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(marker) }
        .map { (directory as NSString).appendingPathComponent($0) }
    }
  }

  func testMaliciousArchivesAreRefusedWithoutWritingAnything() throws {
    let workspace = try fixture()
    let marker = "zipslip-\(UUID().uuidString)"
    let real = try CraftedZip.entries(of: workspace.file("\(acmeRelease)/\(acmeZip)"))
    let top = "ContextSDK_Acme/"
    let model = top + "Sources/ContextSDK/Resources/Models/onboarding_upsell_v73.mlmodel"
    XCTAssertTrue(real.contains { $0.name == model }, "acme's zip holds \(model)")
    let readme = real.first { $0.name == top + "README.md" }!
    let readmeSize = Int64(Data(base64Encoded: readme.data)!.count)
    func text(_ string: String) -> Data { Data(string.utf8) }
    func replacing(_ name: String, with entry: CraftedZip.Entry) -> [CraftedZip.Entry] {
      real.map { $0.name == name ? entry : $0 }
    }
    let absolute = "/tmp/release-faults-\(marker)/evil.txt"
    let big = String(repeating: "line of text\n", count: 160_000)

    // (name, entries, what the refusal must say)
    let cases: [(String, [CraftedZip.Entry], String)] = [
      (
        "zip-slip", real + [.init(name: "../\(marker).txt", data: text("evil"))],
        "entry '../\(marker).txt' escapes the top-level directory"
      ),
      (
        "nested zip-slip", real + [.init(name: top + "../../\(marker).txt", data: text("evil"))],
        "entry '\(top)../../\(marker).txt' escapes the top-level directory"
      ),
      (
        "zip-slip to /tmp",
        real + [
          .init(name: top + String(repeating: "../", count: 16) + "tmp/\(marker).txt", data: text("evil"))
        ],
        "escapes the top-level directory"
      ),
      (
        "absolute path", real + [.init(name: absolute, data: text("evil"))],
        "entry '\(absolute)' is an absolute path"
      ),
      (
        "symbolic link",
        real + [.init(name: top + "passwd-\(marker)", data: text("/etc/passwd"), mode: 0o120777)],
        "entry '\(top)passwd-\(marker)' is a symbolic link (expected a regular file or directory)"
      ),
      (
        "symbolic link, then a file through it",
        real + [
          .init(name: top + "escape", data: text("/tmp"), mode: 0o120777),
          .init(name: top + "escape/\(marker).txt", data: text("evil")),
        ],
        "entry '\(top)escape' is a symbolic link"
      ),
      (
        "symbolic link in a file's place",
        replacing(
          top + "Package.swift",
          with: .init(name: top + "Package.swift", data: text("/tmp/\(marker)"), mode: 0o120777)),
        "entry '\(top)Package.swift' is a symbolic link"
      ),
      (
        "absurd declared size",
        replacing(
          model,
          with: .init(
            name: model, data: Data(base64Encoded: real.first { $0.name == model }!.data)!,
            declaredSize: 4_000_000_000)),
        "entries declare or hold more than \(2 << 30) bytes uncompressed (the extraction limit)"
      ),
      (
        "header claims more than the data",
        replacing(
          readme.name,
          with: .init(
            name: readme.name, data: Data(base64Encoded: readme.data)!, deflate: true,
            declaredSize: readmeSize + 1000)),
        "entry '\(readme.name)'"
      ),
      (
        "header claims less than the data",
        real + [.init(name: top + "big-\(marker).txt", data: text(big), deflate: true, declaredSize: 10)],
        "entry '\(top)big-\(marker).txt' declares 10 bytes but holds at least"
      ),
      (
        "too many entries",
        real + (0..<10_001).map { .init(name: top + "many/\($0)", data: Data()) },
        "has more than 10000 entries (the extraction limit)"
      ),
      (
        "two top-level directories", real + [.init(name: "Other-\(marker)/x.txt", data: text("x"))],
        "expected exactly one top-level directory, found '\(top)', 'Other-\(marker)/'"
      ),
      (
        "unnormalised path", real + [.init(name: top + "./\(marker).txt", data: text("x"))],
        "entry '\(top)./\(marker).txt' has an empty or '.' path component"
      ),
      // Which of two entries under one name a reader gets is up to the reader.
      (
        "duplicate entry", real + [.init(name: readme.name, data: text("another README"))],
        "entry '\(readme.name)' is in it twice"
      ),
      (
        "names one file on a case-insensitive file system",
        real + [.init(name: top + "readme.md", data: text("another README"))],
        "entry '\(top)readme.md' and '\(readme.name)' are one file on case-insensitive or normalising file systems"
      ),
      (
        "names one file on a normalising file system",
        real + [
          .init(name: top + "caf\u{E9}-\(marker).txt", data: text("composed")),
          .init(name: top + "cafe\u{301}-\(marker).txt", data: text("decomposed")),
        ],
        // libarchive hands both over in NFC: one name twice (ZipReaderTests has both readings).
        "\(top)caf\u{E9}-\(marker).txt'"
      ),
      (
        "control character in a name",
        real + [.init(name: top + "x\u{1B}[2J\n::warning::\(marker).txt", data: text("x"))],
        "entry '\(top)x\\u{1B}[2J\\u{A}::warning::\(marker).txt' has a control character in its name"
      ),
    ]

    let zips = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-zips-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: zips) }
    let markedBefore = marked(marker)
    XCTAssertEqual(markedBefore, [])

    for (index, (name, entries, expected)) in cases.enumerated() {
      let zip = zips.appendingPathComponent("\(index).zip")
      try CraftedZip.write(entries, to: zip)
      let directory = try releaseDirectory("case-\(index)", zip: zip, in: workspace)
      let relative = "evil/case-\(index)/acme/\(firstVersion)"
      let before = Workspace.snapshot(workspace.root)

      for arguments in [[relative, "--no-build"], [relative]] {
        let run = verify(arguments, in: workspace)
        XCTAssertEqual(run.code, 1, "\(name) \(arguments): \(run.all)")
        let failures = run.standardError.filter { $0.hasPrefix("  FAIL ") }
        XCTAssertTrue(
          failures.contains { $0.contains(expected) }, "\(name): expected “\(expected)” in \(run.all)")
        XCTAssertEqual(run.standardOutput.last, "0 of 1 release verified", name)
        XCTAssertEqual(run.invocations.map(\.commandLine), [], "\(name): no build of a refused archive")
      }

      // The extraction a build would do, tried directly: refused before writing.
      let record = try ReleaseRecord.load(from: directory.appendingPathComponent("release.json"))
      let runner = ScriptedProcessRunner()
      let services = Services(
        processRunner: runner, clock: ManualClock(), root: workspace.root, environment: [:],
        output: CapturedOutput())
      XCTAssertThrowsError(
        try BuildAndConsumeStep(build: true, timeLimit: 60).buildAndConsume(
          directory, record: record, services),
        name
      ) {
        error in
        // The extraction reports the first problem, which for these is the expected one or,
        // for a lying header, libarchive's own reading error of the same entry.
        XCTAssertTrue(
          "\(error)".contains(directory.appendingPathComponent(self.acmeZip).path), "\(name): \(error)")
      }
      XCTAssertEqual(runner.invocations.map(\.commandLine), [], name)

      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "\(name): wrote into the workspace")
      XCTAssertEqual(marked(marker), markedBefore, "\(name): wrote outside")
      XCTAssertFalse(FileManager.default.fileExists(atPath: absolute), name)
      XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/\(marker).txt"), name)
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: workspace.file("evil/case-\(index)/acme/\(marker).txt").path),
        name)
    }
    print("VerifyMaliciousArchiveEndToEndTests: \(cases.count) malicious archives refused")
  }

  func testAnotherCustomersPackageOrModelIsNamed() throws {
    let workspace = try fixture()
    let bluebirdZip = workspace.file("dist/bluebird/\(firstVersion)/ContextSDK_Bluebird-\(firstVersion).zip")
    let models = "Sources/ContextSDK/Resources/Models/"
    let real = try CraftedZip.entries(of: workspace.file("\(acmeRelease)/\(acmeZip)"))
    func modelBytes(_ path: String) throws -> Data { try Data(contentsOf: workspace.file("models/\(path)")) }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-foreign-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }

    // Bluebird's real package, renamed into acme's release.
    let renamed = try releaseDirectory("bluebird-renamed", zip: bluebirdZip, in: workspace)
    // Acme's package with its onboarding_upsell v73 replaced by bluebird's v72 bytes.
    let swappedZip = scratch.appendingPathComponent("swapped.zip")
    try CraftedZip.write(
      real.map {
        $0.name == "ContextSDK_Acme/\(models)onboarding_upsell_v73.mlmodel"
          ? .init(name: $0.name, data: try modelBytes("onboarding_upsell/72.mlmodel")) : $0
      }, to: swappedZip)
    let swapped = try releaseDirectory("model-swapped", zip: swappedZip, in: workspace)
    // Acme's package with rating_request v31 hidden under another name.
    let hiddenZip = scratch.appendingPathComponent("hidden.zip")
    try CraftedZip.write(
      real + [
        .init(
          name: "ContextSDK_Acme/Sources/ContextSDK/Resources/notes.bin",
          data: try modelBytes("rating_request/31.mlmodel"))
      ],
      to: hiddenZip)
    let hidden = try releaseDirectory("model-hidden", zip: hiddenZip, in: workspace)

    let cases: [(URL, [String])] = [
      (
        renamed,
        [
          "ContextSDK_Bluebird/\(models)onboarding_upsell_v72.mlmodel is onboarding_upsell v72, a model this customer does not ship",
          "ContextSDK_Bluebird/\(models)rating_request_v31.mlmodel is rating_request v31, a model this customer does not ship",
        ]
      ),
      (
        swapped,
        [
          "\(models)onboarding_upsell_v73.mlmodel is onboarding_upsell v72, a model this customer does not ship",
          "\(models)onboarding_upsell_v73.mlmodel is not onboarding_upsell v73 (sha256 differs)",
        ]
      ),
      (
        hidden,
        [
          "Sources/ContextSDK/Resources/notes.bin is rating_request v31, a model this customer does not ship",
          "Sources/ContextSDK/Resources/notes.bin is not listed in release.json",
        ]
      ),
    ]
    for (directory, expected) in cases {
      let before = Workspace.snapshot(workspace.root)
      let relative = String(directory.path.dropFirst(workspace.root.path.count + 1))
      let run = verify([relative, "--no-build"], in: workspace)
      XCTAssertEqual(run.code, 1, run.all)
      for line in expected {
        XCTAssertTrue(
          run.standardError.contains("  FAIL \(acmeZip): \(line)"), "\(relative): “\(line)” in \(run.all)")
      }
      XCTAssertEqual(run.invocations.count, 0)
      XCTAssertEqual(Workspace.snapshot(workspace.root), before)
    }
    // The untouched releases pass the same checks.
    let clean = verify(["dist", "--no-build"], in: workspace)
    XCTAssertEqual(clean.code, 0, clean.all)
  }

  /// A release.json is input too: one that lies about a model's identity, lists a file twice,
  /// names an artifact outside its directory, or cannot be read is refused for that release
  /// alone, without a crash and without starting anything.
  func testLyingOrBrokenReleaseRecordsAreRefused() throws {
    let workspace = try fixture()
    let models = "Sources/ContextSDK/Resources/Models/"
    let real = try CraftedZip.entries(of: workspace.file("\(acmeRelease)/\(acmeZip)"))
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-records-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    func edit(_ directory: URL, _ change: (inout ReleaseRecord) throws -> Void) throws {
      let url = directory.appendingPathComponent("release.json")
      var record = try ReleaseRecord.load(from: url)
      try change(&record)
      try record.encoded().write(to: url)
    }

    // Bluebird's onboarding_upsell v72 in acme's package under acme's v73 name, and acme's
    // release.json rewritten to agree with the archive: only the store can tell.
    let leaked = try Data(contentsOf: workspace.file("models/onboarding_upsell/72.mlmodel"))
    let leakedSHA = SHA256Digest.hex(of: leaked)
    let relabeledZip = scratch.appendingPathComponent("relabeled.zip")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let entry = "ContextSDK_Acme/\(models)onboarding_upsell_v73.mlmodel"
    try CraftedZip.write(
      real.map { $0.name == entry ? .init(name: $0.name, data: leaked) : $0 }, to: relabeledZip)
    let relabeled = try releaseDirectory("relabeled", zip: relabeledZip, in: workspace)
    try edit(relabeled) { record in
      for index in record.models.indices where record.models[index].flowName == "onboarding_upsell" {
        record.models[index].sha256 = leakedSHA
      }
      for index in record.files.indices
      where record.files[index].path == "\(models)onboarding_upsell_v73.mlmodel" {
        record.files[index].sha256 = leakedSHA
        record.files[index].size = Int64(leaked.count)
      }
    }
    let duplicated = try releaseDirectory(
      "duplicated", zip: workspace.file("\(acmeRelease)/\(acmeZip)"), in: workspace)
    try edit(duplicated) { record in record.files.append(record.files[0]) }
    let escaping = try releaseDirectory(
      "escaping", zip: workspace.file("\(acmeRelease)/\(acmeZip)"), in: workspace)
    try edit(escaping) { record in record.artifact.file = "../../../../\(self.acmeRelease)/\(self.acmeZip)" }

    let cases: [(URL, String)] = [
      (
        relabeled,
        "release.json: models lists onboarding_upsell v73 with sha256 \(leakedSHA.prefix(12))…, the store's onboarding_upsell v72"
      ),
      (duplicated, "release.json: files lists "),
      (
        escaping,
        "release.json: artifact.file \"../../../../\(acmeRelease)/\(acmeZip)\" is not a plain file name"
      ),
    ]
    for (directory, expected) in cases {
      let before = Workspace.snapshot(workspace.root)
      let relative = String(directory.path.dropFirst(workspace.root.path.count + 1))
      let run = verify([relative, "--no-build"], in: workspace)
      XCTAssertEqual(run.code, 1, run.all)
      XCTAssertTrue(
        run.standardError.contains { $0.hasPrefix("  FAIL \(expected)") },
        "\(relative): “\(expected)” in \(run.all)")
      XCTAssertEqual(run.invocations.count, 0)
      XCTAssertEqual(Workspace.snapshot(workspace.root), before)
    }

    // A zip named on the command line must be the artifact its release.json describes.
    let other = workspace.file("evil/renamed-zip/acme/\(firstVersion)")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    for file in ["release.json", acmeZip, acmeZip + ".sha256"] {
      try FileManager.default.copyItem(
        at: workspace.file("\(acmeRelease)/\(file)"), to: other.appendingPathComponent(file))
    }
    try FileManager.default.copyItem(
      at: other.appendingPathComponent(acmeZip), to: other.appendingPathComponent("Other.zip"))
    let named = verify(["evil/renamed-zip/acme/\(firstVersion)/Other.zip", "--no-build"], in: workspace)
    XCTAssertEqual(named.code, 1, named.all)
    XCTAssertTrue(
      named.standardError.contains(
        "  FAIL Other.zip: release.json beside it describes \(acmeZip), not this file"),
      named.all)

    // An unreadable release.json fails its release; the others in the same dist are verified.
    let dist = workspace.file("evil/broken-dist")
    for id in ["acme", "bluebird"] {
      try FileManager.default.createDirectory(
        at: dist.appendingPathComponent(id), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: workspace.file("dist/\(id)/\(firstVersion)"),
        to: dist.appendingPathComponent("\(id)/\(firstVersion)"))
    }
    try "{ not json".write(
      to: dist.appendingPathComponent("acme/\(firstVersion)/release.json"), atomically: true, encoding: .utf8)
    let broken = verify(["evil/broken-dist", "--no-build"], in: workspace)
    XCTAssertEqual(broken.code, 1, broken.all)
    XCTAssertEqual(broken.standardOutput.last, "1 of 2 releases verified", broken.all)
    XCTAssertTrue(
      broken.standardError.contains { $0.hasPrefix("  FAIL ") && $0.contains("release.json") }, broken.all)
  }
}
