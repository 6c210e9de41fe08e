package inputs

// Placeholders for the `karpenter:"through"` values a preview does not know (doc.go, "Values not
// known at Construct"): ResolvePlainOutputs puts one in place of such a value (a string, a map's
// value, or one entry standing for a whole map), and the checks skip it.

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
