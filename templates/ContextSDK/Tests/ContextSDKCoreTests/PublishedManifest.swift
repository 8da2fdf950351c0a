import Foundation

/// A `models.json` as the release tool publishes it with one offer (onboarding_upsell
/// v74 to 10% of devices), byte for byte but for example identifiers, and the model it
/// offers: written by the tool's tests (OTAPublishedFormatEndToEndTests, UPDATE_GOLDEN=1)
/// from its golden Tests/Fixtures/OTA/models.json, which they check. Do not edit by hand.
enum PublishedManifest {
  /// The public URL it was published with: model URLs start with it.
  static let publicURL = "https://cdn.example.com/sdk"

  static let json = #"""
{
  "appID" : "0000000a-0000-4000-8000-00000000000b",
  "customer" : "example",
  "flows" : {
    "onboarding_upsell" : {
      "bundledVersion" : 73,
      "flowId" : 8362,
      "models" : [
        {
          "inputs" : [
            "session_count",
            "days_since_install",
            "minutes_in_app",
            "screens_viewed"
          ],
          "minimumSDKVersion" : "1.0.0",
          "modelVersion" : 74,
          "rolloutPercent" : 10,
          "salt" : "00000000000000000000000000000001",
          "sha256" : "b0760faff66edff0beea4071bb450929b39dfa6bb57c148fa8c58f6a4389117e",
          "size" : 916,
          "specificationVersion" : 1,
          "status" : "active",
          "url" : "https://cdn.example.com/sdk/ota/models/b0760faff66edff0beea4071bb450929b39dfa6bb57c148fa8c58f6a4389117e.mlmodel"
        }
      ],
      "paused" : false
    }
  },
  "revision" : 1,
  "schemaVersion" : 1
}
"""#

  /// The bytes of the offered model (onboarding_upsell v74), base64.
  static let model = Data(
    base64Encoded: [
      "CAESgQQKEwoNc2Vzc2lvbl9jb3VudBoCEgAKGAoSZGF5c19zaW5jZV9pbnN0YWxsGgISAAoUCg5t",
      "aW51dGVzX2luX2FwcBoCEgAKFAoOc2NyZWVuc192aWV3ZWQaAhIAUhEKC3Nob3dfdXBzZWxsGgIK",
      "AFIYChBjbGFzc1Byb2JhYmlsaXR5GgQyAgoAWgtzaG93X3Vwc2VsbGIQY2xhc3NQcm9iYWJpbGl0",
      "eaIG1gIKPERlY2lkZXMgd2hldGhlciB0byBzaG93IHRoZSB1cHNlbGwgYXQgdGhlIGVuZCBvZiBv",
      "bmJvYXJkaW5nLhICNzQaKkNvbnRleHRTREsgbW9kZWwgdHJhaW5pbmcgKHN5bnRoZXRpYyBkYXRh",
      "KSIhUHJvcHJpZXRhcnk7IHN5bnRoZXRpYyB0ZXN0IG1vZGVsogY6CiNjb20uZ2l0aHViLmFwcGxl",
      "LmNvcmVtbHRvb2xzLnNvdXJjZRITc2Npa2l0LWxlYXJuPT0xLjUuMaIGKwokY29tLmdpdGh1Yi5h",
      "cHBsZS5jb3JlbWx0b29scy52ZXJzaW9uEgM5LjCiBg4KBmZsb3dJZBIEODM2MqIGHQoIZmxvd05h",
      "bWUSEW9uYm9hcmRpbmdfdXBzZWxsogYSCgxtb2RlbFZlcnNpb24SAjc0ogYRCgl0aHJlc2hvbGQS",
      "BDAuNzDCDIoDCocDCtYBCAESfAoTCg1zZXNzaW9uX2NvdW50GgISAAoYChJkYXlzX3NpbmNlX2lu",
      "c3RhbGwaAhIAChQKDm1pbnV0ZXNfaW5fYXBwGgISAAoUCg5zY3JlZW5zX3ZpZXdlZBoCEgBSHwoS",
      "X19mZWF0dXJlX3ZlY3Rvcl9fGgkqBwoBBBDAgATSJVMKEQoNc2Vzc2lvbl9jb3VudBABChYKEmRh",
      "eXNfc2luY2VfaW5zdGFsbBABChIKDm1pbnV0ZXNfaW5fYXBwEAEKEgoOc2NyZWVuc192aWV3ZWQQ",
      "AQqrAQgBEm0KHwoSX19mZWF0dXJlX3ZlY3Rvcl9fGgkqBwoBBBDAgARSEQoLc2hvd191cHNlbGwa",
      "AgoAUhgKEGNsYXNzUHJvYmFiaWxpdHkaBDICCgBaC3Nob3dfdXBzZWxsYhBjbGFzc1Byb2JhYmls",
      "aXR5ghk3CiIKIF8HzhlR2ss/BFYOLbKdv7/129eBc0akPy0hH/RsVs2/EgiVZYhjXdz8PyABqgYE",
      "CgIAAQ=="
    ].joined())!
}
