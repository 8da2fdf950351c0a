/// Manifests that end-to-end tests of several targets release.
package enum EndToEndManifests {
  /// Two customers sharing a flow at different versions, so each has a model the other must
  /// not get.
  package static let twoCustomers = """
    [
      {"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
       "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73},
                        {"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 14}]},
      {"id": "bluebird", "bundle_identifiers": ["com.bluebird.notes"],
       "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 72}]}
    ]
    """

  /// One customer, acme, with one model.
  package static let acme = """
    [{"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
      "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]}]
    """
}
