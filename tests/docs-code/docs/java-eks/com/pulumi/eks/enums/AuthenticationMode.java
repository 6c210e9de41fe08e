package com.pulumi.eks.enums;

/**
 * Compile-time stand-in for pulumi-eks 4.3.0's com.pulumi.eks.enums.AuthenticationMode (its
 * generated sdk/java): the constants and their values; see Cluster.
 */
public enum AuthenticationMode {
    @Deprecated ConfigMap("CONFIG_MAP"),
    Api("API"),
    @Deprecated ApiAndConfigMap("API_AND_CONFIG_MAP");

    private final String value;

    AuthenticationMode(String value) {
        this.value = value;
    }

    public String getValue() {
        return this.value;
    }
}
