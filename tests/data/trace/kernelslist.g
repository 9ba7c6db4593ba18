MemcpyHtoD,0x00007f0000000000,8192
MemcpyHtoD,0x00007f0000010000,4096
kernel-1.traceg
kernel-2.traceg
kernel-3.traceg
