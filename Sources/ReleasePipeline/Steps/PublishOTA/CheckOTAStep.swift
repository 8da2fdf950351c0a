import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePublishing
import ReleaseSettings

/// Before anything is built or published: reads `rollouts.json`, checks it against the
/// manifest (a customer only gets models of its own flows) and every offered model against the
/// store and the SDK being released (it must exist, run on that SDK and carry metadata that
/// agrees with its place), finds where the OTA manifests go and reads the manifests published
/// there. Bad input ends the run with exit 2 and nothing written.
package struct CheckOTAStep: Step {
  package let name = "check rollouts"
  /// Which command publishes the channel: where it goes and what is refused differ.
  let publisher: ChannelPublisher

  package init(for publisher: ChannelPublisher) {
    self.publisher = publisher
  }

  /// Why publishing the signed channel cannot start: trusted keys and no private key.
  package static let missingSigner =
    "publishing the signed over-the-air channel needs a private key, and none was given; pass --signing-key <file> or set RELEASE_SIGNING_KEY to the PEM text of a trusted key's private half"

  package func skipReason(_ inputs: ReleaseInputs, _ context: ReleaseContext) -> String? {
    context.settings.publishing.destinations.isEmpty ? OTAPlan.noDestination : nil
  }

  package func run(_ inputs: ReleaseInputs, _ context: ReleaseContext) throws -> OTAPlan {
    let manifest = inputs.manifest
    let settings = context.settings
    let rollouts = try RolloutState.load(
      from: context.services.resolve(settings.inputs.rolloutsPath), displayPath: settings.inputs.rolloutsPath)
    try OTAInputs.check(rollouts, against: manifest, displayPath: settings.inputs.rolloutsPath)
    var offered: [ModelReference: RolloutChange.OfferedModel] = [:]
    // One line each, every problem of the run.
    var problems: [Diagnostic] = []
    checkOffers(rollouts, inputs, settings: settings, offered: &offered, problems: &problems)
    let stores = try OTADestination.stores(inputs.publishTargets, context, for: publisher)
    checkDestinations(rollouts, inputs, settings: settings, stores: stores, problems: &problems)
    // The signed channel needs a private key whose public half is trusted: refused before
    // anything is built or uploaded. A dry run shows the refusal and goes on (a release run
    // has shown its own, `ReleaseSignature.checkCanSign`).
    if !stores.isEmpty, settings.hasSignedChannel, !settings.signing.canSign {
      if !settings.dryRun { throw ReleaseError.usage(Self.missingSigner) }
      if publisher == .otaPublish {
        context.reporter.report(.dryRun(step: name, lines: ["would refuse: \(Self.missingSigner)"]))
      }
    }
    // A published legacy pointer that is not this customer's manifest as this tool writes it
    // would stop the publish halfway: found here, nothing is published (or built). A signed
    // channel's pointer is judged by the publish, channel by channel (`SignedChannelPublisher`):
    // one bad channel never blocks another's publish.
    try checkPublishedPointers(stores, manifest: manifest, settings: settings, problems: &problems)
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return OTAPlan(rollouts: rollouts, offered: offered, stores: stores, customers: manifest.customers)
  }

  /// Every model `rollouts` offers: in the store, running on the SDK being released, with
  /// metadata that agrees with its place; each read once into `offered`.
  private func checkOffers(
    _ rollouts: RolloutState, _ inputs: ReleaseInputs, settings: RunSettings,
    offered: inout [ModelReference: RolloutChange.OfferedModel], problems: inout [Diagnostic]
  ) {
    let manifest = inputs.manifest
    let store = inputs.modelStore
    let catalog = inputs.signals
    for customer in manifest.customers {
      for (flowName, flow) in (rollouts.customers[customer.id] ?? [:]).sorted(by: { $0.key < $1.key }) {
        func problem(_ message: String) {
          problems.append(
            Diagnostic(
              file: settings.inputs.rolloutsPath, path: "customers.\(customer.id).\(flowName)",
              message: message))
        }
        let flowId = customer.customModels.first { $0.flowName == flowName }?.flowId
        for offer in flow.models {
          let reference = ModelReference(flowName: flowName, version: offer.modelVersion)
          let model: RolloutChange.OfferedModel
          if let known = offered[reference] {
            model = known
          } else {
            do { model = try OTAInputs.read(reference, from: store) } catch {
              problem("\(error)")
              continue
            }
            offered[reference] = model
            if let gap = ModelAlignment.gaps(
              inputs: model.info.inputNames, catalog: catalog, sdkVersion: inputs.sdkVersion,
              feature: inputs.template.features.feature(servingFlow: flowName)
            ).first {
              problem(
                "offers \(reference), which \(ModelAlignment.describe(gap, sdkVersion: inputs.sdkVersion))")
            }
          }
          // Per customer: the flow id it is checked against is the customer's.
          for mismatch in ModelAlignment.metadataMismatches(model.info, reference: reference, flowId: flowId)
          {
            problem(
              "offers \(reference), which has \(mismatch.key) \"\(mismatch.found)\" in its metadata; \(mismatch.source) says \(mismatch.expected)"
            )
          }
        }
      }
    }
  }

  /// Somewhere devices can read the channel from: a public destination when releases go to a
  /// private one, an object store when anything is offered.
  private func checkDestinations(
    _ rollouts: RolloutState, _ inputs: ReleaseInputs, settings: RunSettings, stores: [ObjectStore],
    problems: inout [Diagnostic]
  ) {
    let privateDestination = inputs.publishTargets.first {
      if case .s3 = $0.destination { return true }
      return false
    }
    if publisher == .releaseRun, settings.publishing.otaDestination == nil,
      OTADestination.offersAnything(rollouts),
      let privateDestination
    {
      problems.append(
        Diagnostic(
          file: settings.inputs.rolloutsPath, path: "",
          message:
            "models are offered over the air, and \(privateDestination.destination) holds releases, which are private; name the public destination devices read them from in release.config.json as publish.otaDestination"
        ))
    } else if stores.isEmpty && !rollouts.customers.isEmpty && privateDestination == nil {
      problems.append(
        Diagnostic(
          file: settings.inputs.rolloutsPath, path: "",
          message:
            "models over the air need an object store (dir: or s3:), and this run publishes only to git: releases repositories; name one in release.config.json as publish.otaDestination"
        ))
    }
  }

  /// The published legacy pointers, each as this tool writes it.
  private func checkPublishedPointers(
    _ stores: [ObjectStore], manifest: Manifest, settings: RunSettings, problems: inout [Diagnostic]
  ) throws {
    for store in stores where !settings.hasSignedChannel || settings.channel.legacyManifests {
      for customer in manifest.customers {
        let key = OTAManifest.pointerKey(customer.id)
        let location = "\(store.displayName)/\(key)"
        guard let current = try store.read(key) else { continue }
        do {
          _ = try OTAManifest.published(current.data, customer: customer.id, location: location)
        } catch let error as OTAPublishError {
          problems.append(Diagnostic(file: location, path: "", message: error.message))
        }
      }
    }
  }
}

/// The command that publishes a run's over-the-air channel.
package enum ChannelPublisher: Sendable {
  /// `all`, `customer`, `merge`: the releases go to `--publish`, private; the channel goes to
  /// `publish.otaDestination`, or without one beside the releases in directory destinations.
  case releaseRun
  /// `ota publish`: only the channel, to its destinations.
  case otaPublish
}

/// What the OTA publish step publishes, checked before any work.
package struct OTAPlan: Sendable {
  /// Why a run with no destination (`--publish`) has no plan and publishes nothing over the air.
  static let noDestination = "no destination (--publish)"

  var rollouts: RolloutState
  var offered: [ModelReference: RolloutChange.OfferedModel]
  var stores: [ObjectStore]
  /// The customers of the run: each gets a manifest (`release all` publishes those that ship).
  var customers: [Customer]
}

/// Where the OTA manifests and models of a run go, every store made for devices (public
/// caching, the public URL). A release run: `publish.otaDestination` of the config when it
/// names one, and only there; without it, beside its releases only in directory destinations
/// (an S3 release destination is private, so devices could not read it; with anything offered
/// it needs `otaDestination`). `ota publish`: its destinations (`--publish`, else
/// `otaDestination`, else the release destinations, of which an S3 one is refused when the
/// command line is resolved: `SettingsResolution.overTheAir`), or `otaDestination` when they are all
/// releases repositories.
package enum OTADestination {
  static func stores(_ targets: [PublishTarget], _ context: ReleaseContext, for publisher: ChannelPublisher)
    throws
    -> [ObjectStore]
  {
    let services = context.services
    let otaStore = try context.settings.publishing.otaDestination.flatMap { destination -> ObjectStore? in
      guard case .objectStore(let store) = try destination.resolve(services, audience: .devices) else {
        return nil
      }
      return store
    }
    if publisher == .releaseRun, context.settings.publishing.otaDestination != nil {
      return otaStore.map { [$0] } ?? []
    }
    let stores = try targets.compactMap { target -> ObjectStore? in
      guard case .objectStore(let store) = target.resolved else { return nil }
      guard case .s3 = target.destination else { return store }
      if publisher == .releaseRun { return nil }
      guard case .objectStore(let forDevices) = try target.destination.resolve(services, audience: .devices)
      else { return nil }
      return forDevices
    }
    if stores.isEmpty && publisher == .otaPublish { return otaStore.map { [$0] } ?? [] }
    return stores
  }

  /// Whether any flow of `rollouts` offers a model.
  static func offersAnything(_ rollouts: RolloutState) -> Bool {
    rollouts.customers.values.contains { $0.values.contains { !$0.models.isEmpty } }
  }
}
