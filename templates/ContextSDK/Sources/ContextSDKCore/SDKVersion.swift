/// This SDK's version: a downloaded model runs only on an SDK at or above its minimum.
public let contextSDKVersion = "3.0.0"
