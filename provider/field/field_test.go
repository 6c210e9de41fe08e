package field

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestPathPrintsAsProgramsWriteIt(t *testing.T) {
	pool := NewPath("nodePools").Index(0)
	for _, c := range []struct {
		path *Path
		want string
	}{
		{nil, ""},
		{NewPath("namespace"), "namespace"},
		{NewPath("discovery", "subnetIds").Index(2), "discovery.subnetIds[2]"},
		{pool.Child("disruption").Child("budgets").Index(1).Child("schedule"), "nodePools[0].disruption.budgets[1].schedule"},
		{pool.Child("requirements").Index(3).Child("values").Index(0), "nodePools[0].requirements[3].values[0]"},
		{pool.Child("labels").Key("team"), `nodePools[0].labels["team"]`},
		{NewPath("nodeClasses").Index(1).Child("tags").Key(`a "b"` + "\n"), `nodeClasses[1].tags["a \"b\"\n"]`},
		{NewPath("values").Child("serviceAccount", "annotations").Key("eks.amazonaws.com/role-arn"), `values.serviceAccount.annotations["eks.amazonaws.com/role-arn"]`},
		{NewPath("spec").Child("kubelet", "additionalSettings", "maxPods"), "spec.kubelet.additionalSettings.maxPods"},
		{(*Path)(nil).Child("clusterName"), "clusterName"},
	} {
		if got := c.path.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	// A path is immutable: extending it twice from the same parent gives two paths.
	a, b := pool.Child("name"), pool.Child("weight")
	if a.String() != "nodePools[0].name" || b.String() != "nodePools[0].weight" || pool.String() != "nodePools[0]" {
		t.Errorf("extending a path changed it: %s, %s, %s", a, b, pool)
	}
	if got := fmt.Sprintf("%s: x", pool.Key("k")); got != `nodePools[0]["k"]: x` {
		t.Errorf("%%s prints the path: %s", got)
	}
}

// Steps walk a path without parsing what it prints: a key with dots or brackets is one step.
func TestPathStepsFromTheTop(t *testing.T) {
	p := NewPath("nodeClasses").Index(1).Child("tags").Key("a.b[0]")
	want := []Step{{Key: "nodeClasses", Index: -1}, {Index: 1}, {Key: "tags", Index: -1}, {Key: "a.b[0]", Index: -1}}
	if got := p.Steps(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := (*Path)(nil).Steps(); len(got) != 0 {
		t.Errorf("the top has steps: %v", got)
	}
}

func TestErrorPrintsOneLine(t *testing.T) {
	p := NewPath("nodePools").Index(0)
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{Invalid(p.Child("weight"), "0 is not between 1 and 100"), "nodePools[0].weight: 0 is not between 1 and 100"},
		{Invalidf(p.Child("labels").Key("k"), "%q is not a valid label value", "a b"), `nodePools[0].labels["k"]: "a b" is not a valid label value`},
		{Invalidf(p.Child("name"), "%q is an EKS built-in pool", "system").WithHint("choose another name"), `nodePools[0].name: "system" is an EKS built-in pool; choose another name`},
		{Required(p.Child("nodeClassRef"), ""), "nodePools[0].nodeClassRef: required"},
		{Required(p.Child("nodeClassRef"), "when there is more than one node class"), "nodePools[0].nodeClassRef: required when there is more than one node class"},
		{NotSupported(p.Child("taints").Index(0).Child("effect"), "Never", []string{"NoSchedule", "NoExecute"}), `nodePools[0].taints[0].effect: "Never" is not one of NoSchedule, NoExecute`},
		{Unknown(p.Child("disruption", "consolidationPolicyy"), "consolidationPolicy"), "nodePools[0].disruption.consolidationPolicyy: unknown property (did you mean consolidationPolicy?)"},
		{Unknown(p.Child("zzz"), ""), "nodePools[0].zzz: unknown property"},
		{&Error{Path: NewPath("nodeClasses").Index(0).Child("amiAlias"), Of: "the default class", Detail: "no AMI"}, "nodeClasses[0].amiAlias (the default class): no AMI"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestJoinPrintsOneProblemPerLine(t *testing.T) {
	a := Invalid(NewPath("namespace"), "bad")
	b := Required(NewPath("clusterName"), "")
	other := errors.New("version: not a version")
	var none *Error // a check's typed nil: no problem

	if err := Join(); err != nil {
		t.Errorf("no problems: %v", err)
	}
	if err := Join(nil, none, Join()); err != nil {
		t.Errorf("nil errors, a nil *Error and an empty join are no problems: %v", err)
	}

	joined := Join(a, nil, none, Join(b, other))
	want := "namespace: bad\nclusterName: required\nversion: not a version"
	if joined.Error() != want {
		t.Errorf("got %q, want %q", joined, want)
	}
	if std := errors.Join(a, nil, errors.Join(b, other)); std.Error() != joined.Error() {
		t.Errorf("prints %q where errors.Join prints %q", joined, std)
	}
	if l, ok := joined.(List); !ok || len(l) != 3 {
		t.Errorf("a List of the three problems, nested lists flattened: %#v", joined)
	}
	var e *Error
	if !errors.As(joined, &e) || e != a {
		t.Errorf("errors.As finds the first *Error")
	}
	if !errors.Is(joined, other) {
		t.Errorf("errors.Is finds a problem")
	}
}

func TestWarningPrintsAsAnErrorOrItsDetail(t *testing.T) {
	p := NewPath("nodeClasses").Index(0).Child("tags")
	for _, c := range []struct {
		warning Warning
		want    string
	}{
		{Warnf(p, "applied only if %s", "allowed"), "nodeClasses[0].tags: applied only if allowed"},
		{Warning{Path: p, Of: "the default class", Detail: "not read"}, "nodeClasses[0].tags (the default class): not read"},
		{Warnf(nil, "cluster %s: not checked", "demo"), "cluster demo: not checked"},
	} {
		if got := c.warning.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
