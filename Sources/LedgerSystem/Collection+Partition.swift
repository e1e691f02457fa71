extension RandomAccessCollection where Index == Int {
    /// The first index whose element satisfies `predicate`, for a predicate false then true along the collection
    /// (`endIndex` when none does): a binary search.
    @inlinable
    public func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if try predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
