import Foundation
import ReleaseSigning

extension ChannelCheck {
  /// The channel's root documents as devices follow them: `root-1.json` … `root-<n>.json` up
  /// to the committed chain's newest, each there and opening as the committed one after the one
  /// before; and no `root-<n+1>.json` above them (a device would try it, and stop at it when
  /// its root keys did not sign it).
  func checkRoots(_ chain: RootChain, channel: String, into report: inout Report) {
    var previous: ChannelRoot?
    for version in 1...chain.current.version + 1 {
      let key = RootChain.publishedKey(channel: channel, version: version)
      let location = reader.location(of: key)
      let data: Data?
      do { data = try reader.read(key, maximumSize: 64 * 1024) } catch {
        report.problems.append(Finding(location: location, message: "cannot be read: \(Self.reason(error))"))
        return
      }
      guard version <= chain.current.version else {
        if data != nil {
          report.problems.append(
            Finding(
              location: location,
              message:
                "a root document above the committed ones (\(chain.current.version)); expected none: devices stop at a root they refuse"
            ))
        }
        return
      }
      guard let data else {
        report.problems.append(
          Finding(location: location, message: "missing; expected root document \(version): run ota publish"))
        return
      }
      do {
        let root = try ChannelRoot.open(data, after: previous, location: location)
        guard root == chain.roots[version - 1] else {
          report.problems.append(
            Finding(location: location, message: "holds another root than the committed version \(version)"))
          return
        }
        previous = root
      } catch {
        report.problems.append(Finding(location: location, message: error.description))
        return
      }
    }
  }
}

extension ChannelCheck {
  /// Whether `data` verifies with a manifest key the root chain retired and with no trusted key.
  func isSignedOnlyByRetiredKeys(_ data: Data) -> Bool {
    guard let retired = chain?.retiredManifestKeys, !retired.isEmpty,
      (try? DSSEEnvelope.verify(json: data, payloadType: SignedOTAChannel.payloadType, trustedKeys: trusted))
        == nil
    else { return false }
    return
      (try? DSSEEnvelope.verify(json: data, payloadType: SignedOTAChannel.payloadType, trustedKeys: retired))
      != nil
  }
}
