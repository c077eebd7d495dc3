# common/cpu/cpu.mk: build rules of the cpu backend (the kit's CUDA emulation).
# Included by the top Makefile when BACKEND=cpu.  It must define:
#   cu_compile  $(call cu_compile,SRC.cu,OBJ.o,EXTRA_FLAGS)   compile one .cu
#   so_link     $(call so_link,OUT.so,OBJS)                   a shared object for the grader
#   exe_link    $(call exe_link,OUT,OBJS)                     a program
#   BACKEND_DEPS                                             built before any of these run
#   EMU_SANITIZE_FLAGS                                       added to C objects linked with them
# (placeholder: the backend's owner replaces this file)
EMU_DIR := common/cpu
