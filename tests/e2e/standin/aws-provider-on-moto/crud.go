package main

import (
	"context"
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil/rpcerror"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Create, Read, Update and Delete of the resource provider protocol, and what a preview answers
// for them (server.go has the provider, checkdiff.go Check and Diff).

// ---- Create, Read, Update, Delete ---------------------------------------------------------

// previewCreate is what a real provider answers for a create in a preview: the inputs, the
// schema defaults of unset inputs, and unknowns for everything the cloud computes.
func previewCreate(t *rtype, in pmap) pmap {
	outs := pmap{}
	for k, v := range in {
		if k != defaultsKey {
			outs[k] = v
		}
	}
	for key, spec := range t.inputs {
		if spec.unsupported || has(in, key) {
			continue
		}
		switch {
		case !spec.def.IsNull():
			outs[resource.PropertyKey(key)] = spec.def
		case spec.computed:
			outs[resource.PropertyKey(key)] = unknownValue()
		}
	}
	for _, o := range t.outputs {
		outs[resource.PropertyKey(o)] = unknownValue()
	}
	outs["id"] = unknownValue()
	if t.tags {
		outs["tagsAll"] = tagsAllOf(in)
	}
	if t.preview != nil {
		t.preview(in, outs)
	}
	return outs
}

func tagsAllOf(in pmap) resource.PropertyValue {
	if v, ok := in["tags"]; ok && !plain(v).IsNull() {
		return v
	}
	return resource.NewObjectProperty(pmap{})
}

// previewUpdate: the old outputs with the new inputs laid over them; computed values the update
// does not change (arn, id, url, ...) stay known.
func previewUpdate(t *rtype, state, in pmap) pmap {
	outs := state.Copy()
	for key, spec := range t.inputs {
		k := resource.PropertyKey(key)
		switch {
		case spec.unsupported:
		case has(in, key):
			if spec.json && plain(in[k]).IsString() && plain(state[k]).IsString() &&
				jsonEquivalent(plain(in[k]).StringValue(), plain(state[k]).StringValue()) {
				continue
			}
			outs[k] = in[k]
			if spec.fields != nil && !unknown(in[k]) {
				outs[k] = withState(in[k], state[k]) // what the provider computed inside the block stays
			}
		case !spec.def.IsNull():
			outs[k] = spec.def
		case spec.computed:
			// terraform keeps the prior state of an Optional+Computed attribute left unset
		default:
			delete(outs, k)
		}
	}
	if t.tags {
		outs["tagsAll"] = tagsAllOf(in)
	}
	return outs
}

// withComputed fills the Optional+Computed inputs a program left unset from the state (the
// generated targetId, say), so a read finds the object.
func withComputed(t *rtype, in, state pmap) pmap {
	in = in.Copy()
	for key, spec := range t.inputs {
		k := resource.PropertyKey(key)
		if spec.computed && !has(in, key) && has(state, key) {
			in[k] = state[k]
		}
	}
	return in
}

// region is the configured region ("" before Configure).
func (p *provider) region() string {
	if cl, err := p.clients(); err == nil {
		return cl.region
	}
	return ""
}

// ready fails an operation that needs moto before Configure.
func (p *provider) ready() error {
	_, err := p.clients()
	return err
}

func (p *provider) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	in, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	if req.GetPreview() {
		outs := previewCreate(t, in)
		withRegion(t, in, outs, p.region())
		props, err := marshal(outs)
		return &pulumirpc.CreateResponse{Properties: props}, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	c := &call{p: p, urn: urn, typ: t, inputs: in}
	id, err := t.ops.create(ctx, c, in)
	if err != nil {
		logf("Create %s %s failed: %v", t.token, urn.Name(), err)
		if id != "" {
			return nil, initFailed(id, pmap{"id": sv(id)}, err)
		}
		return nil, err
	}
	outs, err := t.ops.read(ctx, c, id, c.inputs)
	if err == nil && outs == nil {
		err = fmt.Errorf("%s %s (%s) was not found right after it was created", t.token, urn.Name(), id)
	}
	if err != nil {
		return nil, initFailed(id, pmap{"id": sv(id)}, err)
	}
	outs["id"] = sv(id)
	withRegion(t, in, outs, p.region())
	p.ops.write("Create", t.token, urn, id, givenKeys(in))
	props, err := marshal(outs)
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, err
}

// initFailed tells the engine the object exists although the operation failed, so it is
// recorded (and deleted on destroy) instead of leaking in moto.
func initFailed(id string, outs pmap, cause error) error {
	props, err := marshal(outs)
	if err != nil {
		return cause
	}
	return rpcerror.WithDetails(rpcerror.New(codes.Unknown, cause.Error()),
		&pulumirpc.ErrorResourceInitFailed{Id: id, Properties: props, Reasons: []string{cause.Error()}})
}

func (p *provider) Read(ctx context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	in, err := unmarshal(req.GetInputs())
	if err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	id := req.GetId()
	readIn := withComputed(t, in, state)
	if len(in) == 0 {
		readIn = state // an import or a `get`: only the state (or nothing) is known
	}
	if len(in) == 0 && len(state) == 0 && t.importer != nil {
		// An import: the id is the import id, in the form terraform's importer parses.
		if id, readIn, err = t.importer(id); err != nil {
			return nil, fmt.Errorf("importing %s %s: %w", t.token, urn.Name(), err)
		}
	}
	c := &call{p: p, urn: urn, typ: t, inputs: readIn}
	outs, err := t.ops.read(ctx, c, id, readIn)
	if err != nil {
		return nil, err
	}
	p.ops.write("Read", t.token, urn, id, nil)
	if outs == nil {
		return &pulumirpc.ReadResponse{}, nil // gone: the engine drops it from the state
	}
	outs["id"] = sv(id)
	withRegion(t, readIn, outs, p.region())
	// The refreshed inputs: the old inputs, each replaced by what moto now holds for it, so a
	// change made outside Pulumi shows as a diff on the next preview.
	newIn := pmap{}
	if len(in) == 0 {
		// What the bridge answers for an import: every input attribute the state has,
		// Optional+Computed ones included (a program's targetId must match the imported one;
		// one the program leaves unset is no change, Diff).
		// Zero values are left out: terraform's state cannot tell an unset string, map or list
		// from an empty one, and the bridge leaves them out of the inputs it extracts.
		for key := range t.inputs {
			if v, ok := outs[resource.PropertyKey(key)]; ok && !t.inputs[key].unsupported && !isZero(v) {
				newIn[resource.PropertyKey(key)] = v
			}
		}
	} else {
		newIn = in.Copy()
		for k := range in {
			if _, isInput := t.inputs[string(k)]; isInput {
				if v, ok := outs[k]; ok {
					newIn[k] = v
				}
			}
		}
	}
	props, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	inputs, err := marshal(newIn)
	return &pulumirpc.ReadResponse{Id: id, Properties: props, Inputs: inputs}, err
}

func (p *provider) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	newIn, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	oldIn, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if req.GetOldInputs() == nil {
		oldIn = state
	}
	// terraform plans no change for an Optional+Computed input the program leaves unset (an
	// imported object's inputs hold them all): each type's update sees it unchanged.
	oldIn = oldIn.Copy()
	for key, spec := range t.inputs {
		if k := resource.PropertyKey(key); spec.computed && !has(newIn, key) {
			delete(oldIn, k)
		}
	}
	if req.GetPreview() {
		outs := previewUpdate(t, state, newIn)
		withRegion(t, newIn, outs, p.region())
		props, err := marshal(outs)
		return &pulumirpc.UpdateResponse{Properties: props}, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	if t.ops.update == nil {
		return nil, fmt.Errorf("%s has no update: every input change replaces it", t.token)
	}
	urn := resource.URN(req.GetUrn())
	id := req.GetId()
	c := &call{p: p, urn: urn, typ: t, inputs: newIn}
	if err := t.ops.update(ctx, c, id, state, oldIn, newIn); err != nil {
		logf("Update %s %s failed: %v", t.token, urn.Name(), err)
		return nil, err
	}
	readIn := withComputed(t, newIn, state)
	outs, err := t.ops.read(ctx, c, id, readIn)
	if err == nil && outs == nil {
		err = fmt.Errorf("%s %s (%s) was not found after it was updated", t.token, urn.Name(), id)
	}
	if err != nil {
		return nil, err
	}
	outs["id"] = sv(id)
	withRegion(t, newIn, outs, p.region())
	var changed []string
	for _, d := range diffInputs(t, oldIn, newIn, state) {
		changed = append(changed, d.key)
	}
	p.ops.write("Update", t.token, urn, id, changed)
	props, err := marshal(outs)
	return &pulumirpc.UpdateResponse{Properties: props}, err
}

func (p *provider) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	oldIn, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	c := &call{p: p, urn: urn, typ: t, inputs: oldIn}
	if err := t.ops.delete(ctx, c, req.GetId(), state); err != nil {
		logf("Delete %s %s failed: %v", t.token, urn.Name(), err)
		return nil, err
	}
	p.ops.write("Delete", t.token, urn, req.GetId(), nil)
	return &emptypb.Empty{}, nil
}

// isZero: an empty string, map or list (or null).
func isZero(v resource.PropertyValue) bool {
	switch {
	case v.IsNull():
		return true
	case v.IsString():
		return v.StringValue() == ""
	case v.IsObject():
		return len(v.ObjectValue()) == 0
	case v.IsArray():
		return len(v.ArrayValue()) == 0
	}
	return false
}
