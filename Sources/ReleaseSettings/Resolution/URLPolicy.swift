import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleasePublishing

/// What URLs the settings may hold: none carries a credential (it would show in the process
/// list, in messages, in packages), and what packages are built with is served so that
/// devices can trust it.
enum URLPolicy {
  /// A model store URL with a credential in it, or plain http to another machine: models
  /// decide what ships, so they come over TLS, or from this machine.
  static func checkModelStore(_ location: String, origin: String) throws {
    guard InputSettings.isRemoteStore(location) else { return }
    if URLCredentials.carriesCredential(location) {
      throw ReleaseError.usage(
        "\(origin) \(URLCredentials.redacted(location)): a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
      )
    }
    if let base = InputSettings.storeBaseURL(location), base.scheme?.lowercased() == "http",
      !LoopbackHost.contains(base.host ?? "")
    {
      throw ReleaseError.usage(
        "\(origin) \(location): plain http only to 127.0.0.1, ::1 or localhost; a model store elsewhere must be https"
      )
    }
  }

  /// A public URL with a credential in it: it would end up in every package and index.
  static func refuseCredential(inPublicURL publicURL: String, origin: String) throws {
    guard URLCredentials.carriesCredential(publicURL) || publicURL.contains("@") else { return }
    throw ReleaseError.usage(
      "\(origin) \(URLCredentials.redacted(publicURL)): a credential in a URL ends up in every package and index; serve the destination without one"
    )
  }

  /// `--remote`: a git remote's name or URL, without a credential.
  static func checkRemote(_ remote: String) throws {
    if URLCredentials.carriesCredential(remote) {
      throw ReleaseError.usage(
        "--remote \(URLCredentials.redacted(remote)): a credential in a URL shows in the process list and in git's messages; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
      )
    }
    if remote.isEmpty || remote.hasPrefix("-")
      || remote.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
    {
      throw ReleaseError.usage(
        "--remote \(remote.prefix(60)): not a git remote name or URL; expected e.g. origin")
    }
  }

  /// The refusals of a public URL devices could not trust: one with no trusted key (packages
  /// would get no channel anyone can sign), and plain `http://` to anything but this machine
  /// (it is built into every package).
  static func checkChannelURL(
    _ publicURL: String?, origin: String, trustsKeys: Bool, configuration: String
  ) throws {
    guard let publicURL else { return }
    guard let url = URL(string: publicURL), let scheme = url.scheme?.lowercased(),
      ["http", "https"].contains(scheme),
      url.host?.isEmpty == false
    else {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): expected an http or https URL, e.g. https://sdk.example.com/releases")
    }
    if scheme == "http", !LoopbackHost.contains(url.host ?? "") {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): plain http:// is built into every package and lets anyone on the way change what devices fetch; expected https:// (http:// only to 127.0.0.1, ::1 or localhost, for tests)"
      )
    }
    if !trustsKeys {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): packages get over-the-air models only through a signed channel, and \(configuration) trusts no key; add a key: release keys generate keys, then list keys/signing.pub in \(configuration) signing.trustedKeys"
      )
    }
  }
}
