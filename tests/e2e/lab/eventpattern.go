package lab

import "fmt"

// PatternMatches matches an EventBridge event pattern of exact values (EventBridge User Guide,
// "Event patterns": each field a list of values, one of which the event's field equals; nested
// objects match nested fields), the form of the component's rules. Any other operator (prefix,
// anything-but, numeric…) is an error: the lab does not evaluate it.
func PatternMatches(pattern, event map[string]any) (bool, error) {
	for field, want := range pattern {
		switch want := want.(type) {
		case map[string]any:
			sub, _ := event[field].(map[string]any)
			if ok, err := PatternMatches(want, sub); !ok || err != nil {
				return false, err
			}
		case []any:
			var found bool
			for _, v := range want {
				if _, isOperator := v.(map[string]any); isOperator {
					return false, fmt.Errorf("pattern field %s: operator %v is not evaluated here", field, v)
				}
				values, isList := event[field].([]any)
				if !isList {
					values = []any{event[field]}
				}
				for _, got := range values {
					found = found || fmt.Sprint(got) == fmt.Sprint(v)
				}
			}
			if !found {
				return false, nil
			}
		default:
			return false, fmt.Errorf("pattern field %s: %v is not a list of values", field, want)
		}
	}
	return true, nil
}
