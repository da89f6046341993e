/* Exports a function, but none of weft's entry points. */
__attribute__((visibility("default"))) int not_a_plugin(void) { return 42; }
