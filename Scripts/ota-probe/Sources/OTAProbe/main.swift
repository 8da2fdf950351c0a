import ContextSDK
import Foundation

// The updater itself, with the install id a test gives each device: internal to the SDK, which
// hands customers `ContextSDK.updateModels(_:)` (SwiftPM's debug builds allow testable imports).
@testable import ContextSDKCore

// OTAProbe <downloads root> <device count> [<manifest URL>]: runs the SDK's updater once per
// device (install ids install-0, install-1, …, each with its own downloads folder under the
// root, which also keeps the highest manifest revision the device accepted) on the package's
// own channel: its signed manifest, checked against the keys it pins (or, for a package that
// pins none, its legacy unsigned one), by default at the URL the package was generated with,
// else at the given one (a mirror, or a forged manifest served in its place); then
// prints the model each device's flows resolve to:
//   install-7 onboarding_upsell 74 <sha256 of the file in use>
//   install-8 onboarding_upsell bundled <sha256 of the bundled file>
// and, when a device's update failed (it keeps what it had), a line of its own before those:
//   install-9 error <why>                       (the manifest was refused or not fetched)
//   install-9 onboarding_upsell error <why>     (that flow's model could not be installed)
// so a refusal and what the device still runs are both visible.
let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let count = Int(arguments[2]), count > 0 else {
  print("usage: OTAProbe <downloads root> <device count> [<manifest URL>]")
  exit(2)
}
let root = URL(fileURLWithPath: arguments[1])
if let error = ContextSDK.configurationError {
  print("error: this package's configuration cannot be read: \(error)")
  exit(2)
}
guard let packageChannel = ContextSDK.configuration.channel else {
  print("error: this package has no over-the-air channel (built without --public-url and trusted keys)")
  exit(2)
}
var channel = packageChannel
if arguments.count == 4 {
  guard let url = URL(string: arguments[3]) else {
    print("error: \(arguments[3]): not a URL")
    exit(2)
  }
  channel = packageChannel.at(url)
}
for index in 0..<count {
  let installID = "install-\(index)"
  let downloads = root.appendingPathComponent(installID)
  // Each device keeps its models and its state in its own folder, and checks at every run.
  let settings = ModelUpdateConfiguration(modelsDirectory: downloads, stateDirectory: downloads, minimumCheckInterval: 0)
  let report = await ModelUpdater(
    channel: channel, configuration: ContextSDK.configuration, installID: installID, settings: settings
  ).update()
  if let error = report.error { print("\(installID) error \(error)") }
  for model in ContextSDK.configuration.models {
    if let error = report.flows[model.flowName]?.error { print("\(installID) \(model.flowName) error \(error)") }
    guard let resolved = ContextSDK.resolveModel(forFlow: model.flowName, downloadsDirectory: downloads) else {
      print("\(installID) \(model.flowName) unresolved -")
      continue
    }
    let version = resolved.source == .downloaded ? String(resolved.modelVersion) : "bundled"
    print("\(installID) \(model.flowName) \(version) \((try? SHA256Digest.hex(ofFileAt: resolved.url)) ?? "-")")
  }
}
