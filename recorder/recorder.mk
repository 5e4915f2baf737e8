# recorder/recorder.mk: the Valgrind tool memrec and the encoder, built
# against the installed Valgrind (pkg-config valgrind). There is no preload:
# the program's own allocator runs (recorder/mr_alloc.c).
#
#   make recorder          $(BUILD)/valgrind/: memrec-amd64-linux,
#                          memrec-encoder and links to every file of
#                          Valgrind's libexec dir, so
#                          VALGRIND_LIB=$(BUILD)/valgrind valgrind --tool=memrec works
#   make install-recorder  the two into Valgrind's libexec dir,
#                          recorder/memrec.h into $(PREFIX)/include
#
# recorder/mr_*.c is the tool (no libc: Valgrind's core is its library);
# recorder/encoder*.c is the encoder, an ordinary program over libmrtrace.

VG_PLATFORM   := $(shell pkg-config --variable=platform valgrind 2>/dev/null)
VG_ARCH       := $(shell pkg-config --variable=arch valgrind 2>/dev/null)
VG_LOAD_ADDR  := $(shell pkg-config --variable=valt_load_address valgrind 2>/dev/null)
VG_INCDIR     := $(shell pkg-config --variable=includedir valgrind 2>/dev/null)
VG_LIBDIR     := $(shell pkg-config --variable=libdir valgrind 2>/dev/null)/valgrind
VG_LIBEXEC    := $(shell pkg-config --variable=exec_prefix valgrind 2>/dev/null)/libexec/valgrind

VGOUT         := $(BUILD)/valgrind
REC_TOOL      := $(VGOUT)/memrec-$(VG_PLATFORM)
REC_ENCODER   := $(VGOUT)/memrec-encoder
REC_TOOL_SRC  := $(sort $(wildcard recorder/mr_*.c))
REC_ENC_SRC   := $(sort $(wildcard recorder/encoder*.c))
REC_TOOL_OBJ  := $(patsubst recorder/%.c,$(BUILD)/recorder/%.o,$(REC_TOOL_SRC))
REC_ENC_OBJ   := $(patsubst recorder/%.c,$(BUILD)/obj/recorder/%.o,$(REC_ENC_SRC))

# The platform macros pub_tool_basics.h needs; no stack protector and no
# builtins because there is no libc inside Valgrind; Valgrind's own -O2 set.
REC_TOOL_CFLAGS := -std=gnu11 $(WARN) -MMD -MP -I$(VG_INCDIR) -Iformat -Irecorder \
    -DVGA_$(VG_ARCH)=1 -DVGO_linux=1 -DVGP_$(subst -,_,$(VG_PLATFORM))=1 \
    -DVGPV_$(subst -,_,$(VG_PLATFORM))_vanilla=1 \
    -m64 -O2 -g -finline-functions -fno-strict-aliasing -fomit-frame-pointer \
    -fno-stack-protector -fno-builtin -Wno-unused-parameter
# Static, at Valgrind's load address (else non-PIE clients cannot be mapped).
REC_TOOL_LDFLAGS := -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none \
    -Wl,-Ttext-segment=$(VG_LOAD_ADDR)
REC_TOOL_LIBS := $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a \
    -lgcc $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a

recorder: $(REC_TOOL) $(REC_ENCODER) $(VGOUT)/.links

$(BUILD)/recorder/%.o: recorder/%.c
	@mkdir -p $(@D)
	$(CC) $(REC_TOOL_CFLAGS) -c $< -o $@

$(REC_TOOL): $(REC_TOOL_OBJ)
	@mkdir -p $(@D)
	$(CC) -m64 $(REC_TOOL_LDFLAGS) -o $@ $^ $(REC_TOOL_LIBS)

$(REC_ENCODER): $(REC_ENC_OBJ) $(LIBTRACE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lelf -lzstd

# Links to the rest of Valgrind's library directory make $(VGOUT) a complete
# VALGRIND_LIB (default.supp, vgpreload_core, the other tools...).
$(VGOUT)/.links: $(REC_TOOL)
	@mkdir -p $(@D)
	rm -f $(VGOUT)/vgpreload_memrec-$(VG_PLATFORM).so   # an older build's preload
	for f in $(VG_LIBEXEC)/*; do n=$$(basename $$f); \
	  case $$n in memrec-*|vgpreload_memrec-*) continue;; esac; \
	  ln -sfn $$f $(VGOUT)/$$n; done
	touch $@

install-recorder: recorder
	install -d $(DESTDIR)$(VG_LIBEXEC) $(DESTDIR)$(PREFIX)/include
	install -m 755 $(REC_TOOL) $(REC_ENCODER) $(DESTDIR)$(VG_LIBEXEC)/
	rm -f $(DESTDIR)$(VG_LIBEXEC)/vgpreload_memrec-$(VG_PLATFORM).so   # an older memrec's
	install -m 644 recorder/memrec.h $(DESTDIR)$(PREFIX)/include/
