// `release` bumps the next line on every SDK release and checks it before generating a
// package: keep it on one line, in exactly this shape.
public let contextSDKVersion = "2.4.0"
