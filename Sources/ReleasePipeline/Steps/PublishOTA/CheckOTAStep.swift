import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePublishing

/// Before anything is built or published: reads `rollouts.json`, checks it against the
/// manifest (a customer only gets models of its own flows) and every offered model against the
/// store and the SDK being released (it must exist, run on that SDK and carry metadata that
/// agrees with its place), finds where the OTA manifests go and reads the manifests published
/// there. Bad input ends the run with exit 2 and nothing written.
package struct CheckOTAStep: Step {
  package let name = "check rollouts"

  package init() {}

  package func skipReason(_ inputs: ReleaseInputs, _ context: ReleaseContext) -> String? {
    context.options.publish.isEmpty ? PublishOTAStep.noDestination : nil
  }

  package func run(_ inputs: ReleaseInputs, _ context: ReleaseContext) throws -> OTAPlan {
    let manifest = inputs.manifest
    let store = inputs.modelStore
    let catalog = inputs.signals
    let options = context.options
    let rollouts = try RolloutState.load(
      from: context.services.resolve(options.rolloutsPath), displayPath: options.rolloutsPath)
    try OTAInputs.check(rollouts, against: manifest, displayPath: options.rolloutsPath)
    var offered: [ModelReference: RolloutChange.OfferedModel] = [:]
    // One line each, every problem of the run.
    var problems: [Diagnostic] = []
    for customer in manifest.customers {
      for (flowName, flow) in (rollouts.customers[customer.id] ?? [:]).sorted(by: { $0.key < $1.key }) {
        func problem(_ message: String) {
          problems.append(
            Diagnostic(
              file: options.rolloutsPath, path: "customers.\(customer.id).\(flowName)", message: message))
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
    let stores = try OTADestination.stores(inputs.publishTargets, context)
    if stores.isEmpty && !rollouts.customers.isEmpty {
      problems.append(
        Diagnostic(
          file: options.rolloutsPath, path: "",
          message:
            "models over the air need an object store (dir: or s3:), and this run publishes only to git: releases repositories; name one in release.config.json as publish.otaDestination"
        ))
    }
    // The signed channel needs a private key whose public half is trusted: refused before
    // anything is built or uploaded.
    if !stores.isEmpty, options.hasSignedChannel, !options.signing.canSign {
      throw ReleaseError.usage(
        "publishing the signed over-the-air channel needs a private key, and none was given; pass --signing-key <file> or set RELEASE_SIGNING_KEY to the PEM text of a trusted key's private half"
      )
    }
    // A published pointer that is not this customer's manifest as this tool writes it would
    // stop the publish halfway: found here, nothing is published (or built). The same holds
    // for a signed channel's pointer no trusted key signed: never published over.
    for store in stores where options.hasSignedChannel {
      for customer in manifest.customers {
        guard let channel = inputs.state.channels[customer.id] else { continue }
        let key = SignedOTAChannel.pointerKey(channel: channel)
        let location = "\(store.displayName)/\(key)"
        guard let current = try store.read(key) else { continue }
        do {
          _ = try SignedOTAChannel.open(
            current.data, trusted: options.signing.trusted, customer: customer.id, location: location)
        } catch let error as OTAPublishError {
          problems.append(Diagnostic(file: location, path: "", message: error.message))
        }
      }
    }
    for store in stores where !options.hasSignedChannel || options.legacyManifests {
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
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return OTAPlan(rollouts: rollouts, offered: offered, stores: stores, customers: manifest.customers)
  }
}

/// What the OTA publish step publishes, checked before any work.
package struct OTAPlan: Sendable {
  var rollouts: RolloutState
  var offered: [ModelReference: RolloutChange.OfferedModel]
  var stores: [ObjectStore]
  /// The customers of the run: each gets a manifest (`release all` publishes those that ship).
  var customers: [Customer]
}

/// Where the OTA manifests of a run go: every object-store destination of the run, or, when
/// the run publishes only to releases repositories, `publish.otaDestination` of the config.
enum OTADestination {
  static func stores(_ targets: [PublishTarget], _ context: ReleaseContext) throws -> [ObjectStore] {
    var stores: [ObjectStore] = targets.compactMap {
      if case .objectStore(let store) = $0.resolved { return store }
      return nil
    }
    if stores.isEmpty, let destination = context.options.otaDestination {
      if case .objectStore(let store) = try destination.resolve(context.services) { stores.append(store) }
    }
    return stores
  }
}
