// The entry point of the layer-check links (CMakeLists.txt, "layer-check"): never run. Each link
// takes every object of one layer and only the layers below it, so a call upward does not link.
int main() { return 0; }
