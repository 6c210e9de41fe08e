package inputs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// tagCharacters is catalog.TagCharacters as a pattern.
var tagCharacters = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

// CheckAWSTags applies AWS's tag rules (catalog/tags.go) to the tags at path, which at most limit
// tags share a resource with: each key and value, and their number.
func CheckAWSTags(path *field.Path, tags map[string]string, limit int) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		f, v := path.Key(k), tags[k]
		switch {
		case k == "" || utf8.RuneCountInString(k) > catalog.MaxTagKeyLength:
			errs = append(errs, field.Invalidf(f, "a tag key is 1-%d characters", catalog.MaxTagKeyLength))
		case strings.HasPrefix(strings.ToLower(k), catalog.ReservedTagPrefix):
			errs = append(errs, field.Invalidf(f, "keys starting with %q are reserved for AWS's own tags", catalog.ReservedTagPrefix))
		case !tagCharacters.MatchString(k):
			errs = append(errs, field.Invalidf(f, "a tag key may contain only %s", catalog.TagCharacters))
		}
		switch {
		case utf8.RuneCountInString(v) > catalog.MaxTagValueLength:
			errs = append(errs, field.Invalidf(f, "the value is %d characters; a tag value is at most %d", utf8.RuneCountInString(v), catalog.MaxTagValueLength))
		case !tagCharacters.MatchString(v):
			errs = append(errs, field.Invalidf(f, "a tag value may contain only %s", catalog.TagCharacters))
		}
	}
	if len(tags) > limit {
		errs = append(errs, field.Invalidf(path, "%d tags; at most %d here (AWS allows %d per resource%s)", len(tags), limit, catalog.MaxTagsPerResource, launchTagsNote(limit)))
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
