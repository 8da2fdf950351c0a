import Foundation
import ReleaseSigning

/// A signed manifest's envelope read exactly as the SDK's `SignedManifest.verifiedPayload`
/// reads it on a device: JSON with `payloadType`, `payload` and `signatures` of `keyid` and
/// `sig` (both required), base64 as Foundation decodes it by default (the standard alphabet,
/// padded; DSSE lets a verifier take URL-safe or unpadded base64 too, and the tool's verifier
/// does, devices do not), and a signature by a trusted key that verifies. What the monitor
/// and the publisher believe is then what every device believes.
enum DeviceEnvelope {
  private struct Envelope: Decodable {
    struct Signature: Decodable {
      let keyid: String
      let sig: String
    }
    let payloadType: String
    let payload: String
    let signatures: [Signature]?
  }

  /// Why a device refuses `data`, or nil when it takes it.
  static func refusal(of data: Data, trusted: [PublicKey], payloadType: String) -> String? {
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
      return
        "not an envelope as devices read it (JSON with payloadType, payload and signatures of keyid and sig)"
    }
    guard envelope.payloadType == payloadType else { return "payloadType is not \(payloadType)" }
    guard let payload = Data(base64Encoded: envelope.payload) else {
      return
        "the payload is not standard base64 with padding, the only form devices decode (found URL-safe or unpadded base64); devices refuse it"
    }
    let message = DSSEEnvelope.preAuthenticationEncoding(payloadType: envelope.payloadType, payload: payload)
    for signature in envelope.signatures ?? [] {
      guard let key = trusted.first(where: { $0.keyID == signature.keyid }),
        let bytes = Data(base64Encoded: signature.sig)
      else { continue }
      if key.isValidSignature(bytes, for: message) { return nil }
    }
    return
      "no signature by a trusted key that devices can check (each is missing, fails, or is not standard base64 with padding); devices refuse it"
  }
}
