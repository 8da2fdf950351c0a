import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseSystem

/// `templates/ContextSDK/signals.json`: the signals (model input features) the SDK computes,
/// each with the SDK version that introduced it:
/// `{"signals": {"session_count": "1.0.0", "battery_level": "2.5.0", …}}`.
///
/// A model can run on SDK version V only if every one of its inputs is a signal introduced at
/// or before V: an older SDK cannot compute a newer signal, and a model fed a missing input
/// makes wrong decisions on the device. So the catalog is what every model is checked against
/// before anything is built or rolled out.
package struct SignalCatalog: Equatable, Sendable {
  package static let fileName = "signals.json"

  /// Signal name → the SDK version that introduced it.
  package var introduced: [String: SemanticVersion]

  init(introduced: [String: SemanticVersion]) { self.introduced = introduced }

  /// Reads and checks the catalog; every problem is reported, each naming its JSON path.
  /// - Parameter displayPath: how messages name the file (`templates/ContextSDK/signals.json`).
  static func load(contentsOf url: URL, displayPath: String) throws -> SignalCatalog {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "",
          message:
            "cannot read the file (\(SystemError.reason(error))); expected the signals the SDK computes")
      ])
    }
    return try load(data: data, displayPath: displayPath)
  }

  /// The catalog of a template read once per run (its `signals.json`), so every check of the
  /// run sees the bytes the packages are generated from.
  /// - Parameter templatesPath: how messages name the template directory.
  package static func load(from template: PackageTemplate, templatesPath: String) throws -> SignalCatalog {
    let displayPath = templatesPath + "/" + fileName
    guard let data = template.files.first(where: { $0.path == fileName })?.bytes else {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "",
          message: "missing from the template; expected the signals the SDK computes")
      ])
    }
    return try load(data: data, displayPath: displayPath)
  }

  static func load(data: Data, displayPath: String) throws -> SignalCatalog {
    let decoder = JSONValueDecoder(try JSONDocument.parse(data, file: displayPath), file: displayPath)
    return try decoder.finish(decoder.decode(SignalCatalog.self))
  }

  /// Signal names become Swift string literals and dictionary keys on devices: keep them plain.
  static func isSignalName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 64 else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }

}

extension SignalCatalog: JSONValueDecodable {
  /// `{"signals": {"<name>": "<major.minor.patch>", …}}`, at least one signal.
  package init?(from decoder: JSONValueDecoder) {
    guard let root = decoder.object(expected: "an object {\"signals\": {…}}") else { return nil }
    root.refuseUnknownKeys(known: ["signals"]) { member, _ in
      decoder.report(
        "unknown key; expected only \"signals\"", path: member.key, at: member.keyPosition)
    }
    guard let signalsDecoder = root.required("signals", missing: "missing; expected an object", at: nil),
      let signals = signalsDecoder.object(expected: "an object of signal name to SDK version")
    else { return nil }
    let before = decoder.problemCount
    var introduced: [String: SemanticVersion] = [:]
    for (member, signal) in signals.entries {
      guard Self.isSignalName(member.key) else {
        signal.report(
          "not a signal name; expected lower-case letters, digits and '_', starting with a letter",
          at: member.keyPosition)
        continue
      }
      guard
        let version = signal.string(
          expected: "the SDK version that introduced it (\"major.minor.patch\")",
          where: { SemanticVersion($0) != nil }
        ).flatMap(SemanticVersion.init)
      else { continue }
      introduced[member.key] = version
    }
    if signals.isEmpty { signalsDecoder.report("expected at least one signal, found none") }
    guard decoder.problemCount == before else { return nil }
    self.init(introduced: introduced)
  }
}
