import Foundation

/// The updater's files in the models directory, per flow: `<version>.mlmodel` with its
/// `<version>.verified` record (what `ModelResolver` needs to run it), `<version>.failed`
/// (back-off), and `<version>.retired`, which names the launch that stopped using it.
///
/// A model the updater stops using is retired: its record goes at once, so it is never
/// resolved again, but its file stays until an update in a later launch of the app (or
/// another process sharing the folder) deletes it, since the app may still be running it.
struct DownloadsFolder: Sendable {
  let directory: URL
  /// This process's launch (`ModelUpdater.currentLaunch`; tests give their own).
  let launchID: String

  func flowDirectory(_ flowName: String) -> URL {
    directory.appendingPathComponent(flowName, isDirectory: true)
  }

  /// Downloaded versions of a flow: `<version>.mlmodel` files with a canonical positive
  /// version, retired ones included.
  func versions(ofFlow flowName: String) -> [Int] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: flowDirectory(flowName).path)) ?? []
    return names.compactMap { name in
      guard name.hasSuffix(".mlmodel"), let version = Int(name.dropLast(".mlmodel".count)), version > 0,
        String(version) + ".mlmodel" == name
      else { return nil }
      return version
    }.sorted()
  }

  /// Whether `version` of the flow is retired (by this launch or an earlier one).
  func isRetired(_ version: Int, ofFlow flowName: String) -> Bool {
    FileManager.default.fileExists(atPath: retiredURL(version, flowName).path)
  }

  /// Stops using `version`: its record goes now, its file at a later launch. True when the
  /// version was there and not retired before.
  @discardableResult
  func retire(_ version: Int, ofFlow flowName: String) -> Bool {
    let flow = flowDirectory(flowName)
    let model = flow.appendingPathComponent("\(version).mlmodel")
    try? FileManager.default.removeItem(at: VerifiedDownload.url(forVersion: version, in: flow))
    try? FileManager.default.removeItem(at: FailedDownload.url(forVersion: version, in: flow))
    guard FileManager.default.fileExists(atPath: model.path), !isRetired(version, ofFlow: flowName) else {
      return false
    }
    try? Data(launchID.utf8).write(to: retiredURL(version, flowName), options: .atomic)
    return true
  }

  /// `version` is the flow's model again (chosen after it was retired).
  func reinstate(_ version: Int, ofFlow flowName: String) {
    try? FileManager.default.removeItem(at: retiredURL(version, flowName))
  }

  /// Deletes the files of models retired by another launch, in every flow folder, and every
  /// file of the updater's in folders of flows this build does not have (no launch of it can
  /// run them). Anything else in the folder is not the updater's and is left alone.
  func deleteRetired(keepingFlows flows: Set<String>) {
    let fileManager = FileManager.default
    let names = (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
    for name in names {
      var isDirectory: ObjCBool = false
      let flow = flowDirectory(name)
      guard fileManager.fileExists(atPath: flow.path, isDirectory: &isDirectory), isDirectory.boolValue else {
        continue
      }
      for version in versions(ofFlow: name) {
        let retiredBy = (try? Data(contentsOf: retiredURL(version, name))).map {
          String(decoding: $0, as: UTF8.self)
        }
        let unused = !flows.contains(name) || (retiredBy != nil && retiredBy != launchID)
        if unused { delete(version, ofFlow: name) }
      }
      if !flows.contains(name), (try? fileManager.contentsOfDirectory(atPath: flow.path))?.isEmpty == true {
        try? fileManager.removeItem(at: flow)
      }
    }
  }

  private func delete(_ version: Int, ofFlow flowName: String) {
    let flow = flowDirectory(flowName)
    for url in [
      retiredURL(version, flowName), VerifiedDownload.url(forVersion: version, in: flow),
      FailedDownload.url(forVersion: version, in: flow), flow.appendingPathComponent("\(version).mlmodel"),
    ] {
      try? FileManager.default.removeItem(at: url)
    }
  }

  private func retiredURL(_ version: Int, _ flowName: String) -> URL {
    flowDirectory(flowName).appendingPathComponent("\(version).retired")
  }
}
