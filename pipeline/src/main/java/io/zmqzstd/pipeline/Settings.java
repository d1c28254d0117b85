package io.zmqzstd.pipeline;

/** The range check the builders' settings of "0 or more" share, so that each refusal reads alike. */
final class Settings {

    private Settings() {
    }

    /**
     * {@code value}, when it is 0 or more.
     *
     * @throws IllegalArgumentException naming the setting, its range and the value
     *     ("maxMessageSize must be 0 or more: maxMessageSize=-1")
     */
    static long atLeastZero(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be 0 or more: " + name + "=" + value);
        }
        return value;
    }
}
