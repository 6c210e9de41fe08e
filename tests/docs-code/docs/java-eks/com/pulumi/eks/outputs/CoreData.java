package com.pulumi.eks.outputs;

import java.util.List;

/** Compile-time stand-in for pulumi-eks 4.3.0's com.pulumi.eks.outputs.CoreData: see com.pulumi.eks.Cluster. */
public final class CoreData {
    private List<String> subnetIds;

    public List<String> subnetIds() {
        return this.subnetIds;
    }
}
