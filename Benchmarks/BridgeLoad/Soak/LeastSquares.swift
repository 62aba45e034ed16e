// The slope of a straight line fitted by least squares: the soak's growth rates (RSS per hour, …).

/// The least-squares slope of `y` against `x` (nil for fewer than two distinct x).
func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double? {
    guard points.count >= 2 else { return nil }
    let n = Double(points.count)
    let meanX = points.reduce(0) { $0 + $1.x } / n
    let meanY = points.reduce(0) { $0 + $1.y } / n
    var covariance = 0.0
    var variance = 0.0
    for point in points {
        covariance += (point.x - meanX) * (point.y - meanY)
        variance += (point.x - meanX) * (point.x - meanX)
    }
    return variance > 0 ? covariance / variance : nil
}

/// A figure's least-squares slope per hour over samples (time in seconds), and its range there.
struct Trend: Encodable {
    var perHour: Double?
    var min: Double
    var max: Double

    init(_ points: [(seconds: Double, value: Double)]) {
        perHour = leastSquaresSlope(points.map { (x: $0.seconds / 3600, y: $0.value) })
        min = points.map(\.value).min() ?? 0
        max = points.map(\.value).max() ?? 0
    }
}

extension Trend {
    /// "slope unit/h (range min–max)" for the log.
    func described(_ unit: String) -> String {
        "\(perHour.map { fmt($0, 2) } ?? "n/a") \(unit)/h (range \(fmt(min, 1))–\(fmt(max, 1)))"
    }
}
