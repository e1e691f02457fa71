extension UnsafeMutableBufferPointer {
    /// Sorts the elements in place by a strict weak order; the fold's sorts (a subscription's dozen records by key,
    /// its grants by start) are this short, and their orders are total, so the result does not depend on how.
    ///
    /// An insertion sort inlined with its comparison up to ``smallSortLimit`` elements, where the standard
    /// library's generic sort spent more on calling the comparison than on comparing; the standard library's sort
    /// beyond it.
    @inline(__always)
    func sortSmall(by areInIncreasingOrder: (Element, Element) -> Bool) {
        guard count > 1 else { return }
        guard count <= smallSortLimit, let base = baseAddress else {
            var all = self
            all.sort(by: areInIncreasingOrder)
            return
        }
        for end in 1..<count {
            let item = base[end]
            var position = end
            while position > 0, areInIncreasingOrder(item, base[position - 1]) {
                base[position] = base[position - 1]
                position -= 1
            }
            if position != end { base[position] = item }
        }
    }
}

extension Array {
    /// ``UnsafeMutableBufferPointer/sortSmall(by:)`` on the array's elements.
    @inline(__always)
    mutating func sortSmall(by areInIncreasingOrder: (Element, Element) -> Bool) {
        withUnsafeMutableBufferPointer { $0.sortSmall(by: areInIncreasingOrder) }
    }
}

/// Up to how many elements ``UnsafeMutableBufferPointer/sortSmall(by:)`` sorts by insertion.
let smallSortLimit = 48
