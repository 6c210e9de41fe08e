package inputs

// Values that only pass through to the custom resources — labels, annotations, taint values,
// tags, selector-term tags, user data, kubelet maps — may be outputs unknown during a preview (a
// class selecting subnets tagged with the name of a cluster the same update creates): nothing is
// planned from them. ResolvePlainOutputs puts a placeholder in their place, the checks skip it
// (they run at `up`, when the value is known and before any child is created), and the
// registration turns it back into an unknown output (build). Fields tagged `karpenter:"through"`
// are such fields (a map's values, a whole map — one placeholder entry stands for it — or the
// string itself).

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
)

// unknownPrefix starts every placeholder: random per process, so no value a user writes is
// mistaken for one.
var unknownPrefix = func() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "unknown-" + hex.EncodeToString(b) + "-"
}()

var unknownCount atomic.Uint64

// newUnknown is a placeholder for a value unknown during a preview. It is a valid label value
// and tag value, so the checks of those pass it; the others skip it (IsUnknown).
func newUnknown() string {
	return fmt.Sprintf("%s%d", unknownPrefix, unknownCount.Add(1))
}

// IsUnknown says whether a value stands for one unknown during a preview.
func IsUnknown(s string) bool {
	return strings.HasPrefix(s, unknownPrefix)
}

// throughTag marks the fields whose values only pass through to the custom resources.
const throughTag = "karpenter"
