package inputs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
)

// tagCharacters is catalog.TagCharacters as a pattern.
var tagCharacters = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

// CheckAWSTags applies AWS's tag rules (catalog/tags.go) to tags that at most limit tags share a
// resource with: each key and value, and their number.
func CheckAWSTags(field string, tags map[string]string, limit int) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		f, v := fmt.Sprintf("%s[%q]", field, k), tags[k]
		switch {
		case k == "" || utf8.RuneCountInString(k) > catalog.MaxTagKeyLength:
			errs = append(errs, fmt.Errorf("%s: a tag key is 1-%d characters", f, catalog.MaxTagKeyLength))
		case strings.HasPrefix(strings.ToLower(k), catalog.ReservedTagPrefix):
			errs = append(errs, fmt.Errorf("%s: keys starting with %q are reserved for AWS's own tags", f, catalog.ReservedTagPrefix))
		case !tagCharacters.MatchString(k):
			errs = append(errs, fmt.Errorf("%s: a tag key may contain only %s", f, catalog.TagCharacters))
		}
		switch {
		case utf8.RuneCountInString(v) > catalog.MaxTagValueLength:
			errs = append(errs, fmt.Errorf("%s: the value is %d characters; a tag value is at most %d", f, utf8.RuneCountInString(v), catalog.MaxTagValueLength))
		case !tagCharacters.MatchString(v):
			errs = append(errs, fmt.Errorf("%s: a tag value may contain only %s", f, catalog.TagCharacters))
		}
	}
	if len(tags) > limit {
		errs = append(errs, fmt.Errorf("%s: %d tags; at most %d here (AWS allows %d per resource%s)", field, len(tags), limit, catalog.MaxTagsPerResource, launchTagsNote(limit)))
	}
	return errs
}

func launchTagsNote(limit int) string {
	if limit < catalog.MaxTagsPerResource {
		return fmt.Sprintf(", and Karpenter adds %d of its own to what it launches", catalog.MaxTagsPerResource-limit)
	}
	return ""
}

// ClassTagLimit is how many tags a node class may carry, its own and the component's together.
const ClassTagLimit = catalog.MaxTagsPerResource - catalog.LaunchTags
