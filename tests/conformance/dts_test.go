package conformance

import (
	"strings"
	"testing"
)

// The shapes the Pulumi generators write: imports, multi-line member types, nested maps,
// comments (JSDoc and others), @deprecated, namespaces, index signatures, declaration merging.
const sampleDTS = `import * as pulumi from "@pulumi/pulumi";
import * as inputs from "../types/input";
import { Role, Other as Renamed } from "./index";
export * from "./more";
export { A, B as C } from "./letters";
/**
 * A resource. Its doc mentions { braces } and "quotes".
 */
export declare class Thing extends pulumi.CustomResource {
    static get(name: string, id: pulumi.Input<pulumi.ID>, state?: ThingState, opts?: pulumi.CustomResourceOptions): Thing;
    readonly arn: pulumi.Output<string>;
    constructor(name: string, args: ThingArgs, opts?: pulumi.CustomResourceOptions);
}
/**
 * The set of arguments for constructing a Thing resource.
 */
export interface ThingArgs {
    /**
     * Required, with a union.
     */
    policy: pulumi.Input<string | inputs.iam.PolicyDocument>;
    // a line comment
    count?: pulumi.Input<number | undefined>;
    /* a block comment */ flag?: pulumi.Input<boolean>;
    tags?: pulumi.Input<{
        [key: string]: pulumi.Input<string>;
    } | undefined>;
    /**
     * @deprecated Use count instead.
     */
    legacyCount?: pulumi.Input<number>;
    readonly readonly?: pulumi.Input<boolean>;
    role?: pulumi.Input<string | Role>;
    compat?: pulumi.Input<"true">;
    list?: pulumi.Input<pulumi.Input<inputs.iam.Statement>[]>;
    fn?: (x: number) => void;
    method(a: string): number;
}
export interface ThingArgs {
    merged?: pulumi.Input<string>;
}
export type Alias = string | "x";
export declare function getThing(args?: GetThingArgs, opts?: pulumi.InvokeOptions): Promise<GetThingResult>;
export declare const ThingKind: {
    readonly A: "a";
};
export type ThingKind = (typeof ThingKind)[keyof typeof ThingKind];
export declare namespace meta {
    namespace v1 {
        interface ObjectMeta {
            name?: pulumi.Input<string>;
            labels?: pulumi.Input<{[key: string]: pulumi.Input<string>}>;
        }
    }
}
export interface Custom {
    apiVersion: string;
    [othersFields: string]: pulumi.Input<any>;
}
`

func TestParseFile(t *testing.T) {
	f, err := ParseFile("iam/thing.d.ts", sampleDTS)
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Decls["Thing"]; d == nil || d.Kind != DeclClass || !strings.Contains(d.Doc, "A resource") {
		t.Fatalf("class Thing: %+v", d)
	}
	args := f.Decls["ThingArgs"]
	if args == nil || args.Kind != DeclInterface {
		t.Fatalf("ThingArgs: %+v", args)
	}
	want := []string{"policy", "count", "flag", "tags", "legacyCount", "readonly", "role", "compat", "list", "fn", "merged"}
	if got := strings.Join(args.Iface.Order, ","); got != strings.Join(want, ",") {
		t.Fatalf("members: got %s, want %s", got, strings.Join(want, ","))
	}
	m := args.Iface.Members
	if m["policy"].Optional || !m["count"].Optional {
		t.Error("optional flags wrong")
	}
	if got := m["policy"].Type.String(); got != "pulumi.Input<string | inputs.iam.PolicyDocument>" {
		t.Errorf("policy type: %s", got)
	}
	if got := m["tags"].Type.String(); got != "pulumi.Input<{[key: string]: pulumi.Input<string>} | undefined>" {
		t.Errorf("tags type: %s", got)
	}
	if got := m["list"].Type.String(); got != "pulumi.Input<pulumi.Input<inputs.iam.Statement>[]>" {
		t.Errorf("list type: %s", got)
	}
	if got := m["compat"].Type.String(); got != `pulumi.Input<"true">` {
		t.Errorf("compat type: %s", got)
	}
	if !m["legacyCount"].Deprecated() || m["count"].Deprecated() {
		t.Error("deprecation not read from JSDoc")
	}
	if got := deprecationNote(m["legacyCount"].Doc); got != "Use count instead." {
		t.Errorf("deprecation note: %q", got)
	}
	if m["fn"].Type.Kind != TFunc {
		t.Errorf("fn: %s", m["fn"].Type)
	}
	if d := f.Decls["getThing"]; d == nil || d.Kind != DeclValue {
		t.Errorf("function getThing: %+v", d)
	}
	if d := f.Decls["ThingKind"]; d == nil || d.Kind != DeclAlias {
		t.Errorf("type ThingKind: %+v", d)
	}
	ns := f.Decls["meta"]
	if ns == nil || ns.Kind != DeclNamespace || ns.NS["v1"].NS["ObjectMeta"] == nil {
		t.Fatalf("namespace meta.v1.ObjectMeta: %+v", ns)
	}
	if got := ns.NS["v1"].NS["ObjectMeta"].Iface.Members["labels"].Type.String(); got != "pulumi.Input<{[key: string]: pulumi.Input<string>}>" {
		t.Errorf("labels: %s", got)
	}
	if c := f.Decls["Custom"]; c.Iface.Index == nil || c.Iface.Index.String() != "pulumi.Input<any>" {
		t.Errorf("index signature: %+v", c.Iface)
	}
	if f.nsImports["inputs"] != "../types/input" || f.named["Renamed"] != (importRef{"./index", "Other"}) {
		t.Errorf("imports: %v %v", f.nsImports, f.named)
	}
	if len(f.exportStar) != 1 || f.exportNamed["C"] != (importRef{"./letters", "B"}) {
		t.Errorf("re-exports: %v %v", f.exportStar, f.exportNamed)
	}
}
