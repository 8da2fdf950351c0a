import ContextSDK
import Foundation

// OTAProbe <downloads root> <device count>: runs the SDK's updater once per device against
// the package's own manifest URL, then prints the model each device's flows resolve to.
let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
  print("usage: OTAProbe <downloads root> <device count>")
  exit(2)
}
let root = URL(fileURLWithPath: arguments[1])
guard let text = ContextSDK.configuration.modelManifestURL, let manifestURL = URL(string: text) else {
  print("error: this package has no over-the-air manifest URL")
  exit(1)
}
for index in 0..<count {
  let installID = "install-\(index)"
  let downloads = root.appendingPathComponent(installID)
  let report = await ModelUpdater(
    manifestURL: manifestURL, configuration: ContextSDK.configuration, downloadsDirectory: downloads,
    installID: installID
  ).update()
  if let error = report.error {
    print("\(installID) error \(error)")
    continue
  }
  for model in ContextSDK.configuration.models {
    guard let resolved = ContextSDK.resolveModel(forFlow: model.flowName, downloadsDirectory: downloads) else {
      print("\(installID) \(model.flowName) unresolved -")
      continue
    }
    let version = resolved.source == .downloaded ? String(resolved.modelVersion) : "bundled"
    print("\(installID) \(model.flowName) \(version) \((try? SHA256Digest.hex(ofFileAt: resolved.url)) ?? "-")")
  }
}
