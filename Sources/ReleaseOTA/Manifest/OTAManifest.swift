import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseManifest
import ReleaseModels
import ReleaseSystem

/// `ota/<id>/models.json` on a publish destination: what one customer's devices are offered
/// over the air, per flow. The SDK's updater reads it (see "Models over the air" in the README
/// for the device rule); every revision is also kept, immutable, as `ota/<id>/models-<n>.json`.
///
/// ```json
/// {"schemaVersion": 1, "customer": "acme", "appID": "<uuid>", "revision": 3,
///  "flows": {"onboarding_upsell": {"flowId": 8362, "bundledVersion": 73, "paused": false,
///    "models": [{"modelVersion": 74, "url": "<public url>", "sha256": "<hex>", "size": 1234,
///                "minimumSDKVersion": "1.0.0", "inputs": ["session_count"], "specificationVersion": 4,
///                "rolloutPercent": 10, "salt": "<hex>", "status": "active"}]}}}
/// ```
package struct OTAManifest: Codable, Equatable, Sendable {
  static let schemaVersion = 1

  struct Model: Codable, Equatable, Sendable {
    var modelVersion: Int
    /// Where the file is served: `ota/models/<sha256>.mlmodel`, immutable.
    var url: String
    var sha256: String
    var size: Int64
    var minimumSDKVersion: String
    var inputs: [String]
    var specificationVersion: Int
    var rolloutPercent: Int
    var salt: String
    var status: String
  }

  struct Flow: Codable, Equatable, Sendable {
    var flowId: Int
    /// The version the customer's current package bundles (customers.json).
    var bundledVersion: Int
    var paused: Bool
    var models: [Model]
  }

  var schemaVersion: Int
  var customer: String
  var appID: String
  /// Grows by one with every published change.
  package var revision: Int
  /// Every flow of the customer, offered models or not.
  var flows: [String: Flow]
  /// When devices stop believing the manifest (`YYYY-MM-DDTHH:MM:SSZ`, UTC): the signed
  /// channel's (schema 2) only; the legacy unsigned file has none.
  package var expires: String?

  package static func pointerKey(_ customer: String) -> String { "ota/\(customer)/models.json" }
  package static func revisionKey(_ customer: String, _ revision: Int) -> String {
    "ota/\(customer)/models-\(revision).json"
  }
  package static func modelKey(sha256: String) -> String { "ota/models/\(sha256).mlmodel" }

  /// The manifest `rollouts` gives for `customer`, at `revision`. `offered` holds every model
  /// the customer's rollouts name, read from the store; `modelURL` maps a key to its public URL.
  package static func make(
    customer: Customer, rollouts: RolloutState, offered: [ModelReference: RolloutChange.OfferedModel],
    catalog: SignalCatalog, revision: Int, modelURL: (String) -> String
  ) -> OTAManifest {
    var flows: [String: Flow] = [:]
    for bundled in customer.customModels {
      let flow = rollouts.flow(customer.id, bundled.flowName)
      let models = (flow?.models ?? []).compactMap { offer -> Model? in
        let reference = ModelReference(flowName: bundled.flowName, version: offer.modelVersion)
        guard let model = offered[reference] else { return nil }
        return Model(
          modelVersion: offer.modelVersion, url: modelURL(modelKey(sha256: model.sha256)),
          sha256: model.sha256,
          size: model.size,
          minimumSDKVersion: ModelAlignment.minimumSDKVersion(
            inputs: model.info.inputNames, catalog: catalog)?
            .description ?? "",
          inputs: model.info.inputNames, specificationVersion: model.info.specificationVersion,
          rolloutPercent: offer.rolloutPercent, salt: offer.salt, status: offer.status.rawValue)
      }
      flows[bundled.flowName] = Flow(
        flowId: bundled.flowId, bundledVersion: bundled.modelVersion, paused: flow?.paused ?? false,
        models: models)
    }
    return OTAManifest(
      schemaVersion: schemaVersion, customer: customer.id, appID: customer.appID, revision: revision,
      flows: flows, expires: nil)
  }

  /// A manifest read back from a destination: one this tool published for `customer`, or an
  /// `unreadablePointer` error naming `location`. Publishing over anything else could hide
  /// someone's mistake (another customer's file, another format) from every device.
  package static func published(
    _ data: Data, customer: String, location: String, schemaVersion: Int = OTAManifest.schemaVersion
  ) throws -> OTAManifest {
    let manifest: OTAManifest
    do { manifest = try JSONDecoder().decode(OTAManifest.self, from: data) } catch {
      throw OTAPublishError.unreadablePointer(location: location, reason: reason(error))
    }
    guard manifest.schemaVersion == schemaVersion else {
      throw OTAPublishError.unreadablePointer(
        location: location, reason: "schemaVersion \(manifest.schemaVersion), expected \(schemaVersion)")
    }
    guard manifest.customer == customer else {
      throw OTAPublishError.unreadablePointer(
        location: location, reason: "the manifest of \"\(manifest.customer)\", expected \"\(customer)\"")
    }
    // The legacy file is unsigned: anyone who can write the bucket can put any number there,
    // and the next revision is counted from it. (A signed one's range is `SignedOTAChannel.open`'s.)
    if schemaVersion == Self.schemaVersion,
      !(0...SignedOTAChannel.maximumRevision).contains(manifest.revision)
    {
      throw OTAPublishError.unreadablePointer(
        location: location,
        reason: "revision \(manifest.revision), expected 0 to \(SignedOTAChannel.maximumRevision)")
    }
    return manifest
  }

  /// A decoding error in one short clause: where in the file, and what.
  private static func reason(_ error: Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound(let key, let context):
      return "no \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return (path.isEmpty ? "" : "\(path): ") + context.debugDescription
    @unknown default:
      return "\(error)"
    }
  }

  /// Stable bytes: sorted keys, a trailing newline.
  package func encoded() throws -> Data {
    try StableJSON.encode(self)
  }

  /// The same manifest with every offer retracted at 0 %: what a device that follows it
  /// falls back from to its bundled models.
  package func retractingEveryOffer() -> OTAManifest {
    var copy = self
    for (name, flow) in flows {
      var retracted = flow
      retracted.models = flow.models.map { model in
        var model = model
        model.status = RolloutState.Status.retracted.rawValue
        model.rolloutPercent = 0
        return model
      }
      copy.flows[name] = retracted
    }
    return copy
  }

  /// The same manifest at another revision: two manifests that differ only in their
  /// revision describe the same offer, and publishing one over the other changes nothing.
  package func at(revision: Int) -> OTAManifest {
    var copy = self
    copy.revision = revision
    return copy
  }
}
