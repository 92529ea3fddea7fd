/* test_nvml_export.c - nvmlInternalGetExportTable, the private table NVIDIA's
 * nvidia-smi asks for (lib/nvml/nvml_export.c): the real library's answers
 * to unknown ids and NULL arguments, the 535 table's size word, and the
 * slots nvidia-smi reads, called as it calls them. */
#include "nvml_dl.h"

typedef nvmlReturn_t (*slot3)(uintptr_t, uintptr_t, uintptr_t);

static const unsigned char smi_id[16] = { 0xc4, 0xfe, 0x3e, 0x6c, 0xc9, 0x8f, 0x6c, 0x4e,
                                          0xa3, 0x27, 0xee, 0x69, 0x6e, 0x12, 0xf7, 0xc4 };

/* The process entry nvidia-smi 535 reads from slots 213-215. */
struct smi_process {
    uint32_t pid, pad;
    uint64_t used_memory;
    uint32_t gi, ci;
    uint64_t cc_memory;
    char name[4096];
};

static const uintptr_t *table(void)
{
    const void *t = NULL;
    NV_OK(nv.nvmlInternalGetExportTable(&t, smi_id));
    ck_assert_ptr_nonnull(t);
    return t;
}

static nvmlReturn_t call(unsigned slot, uintptr_t a, uintptr_t b, uintptr_t c)
{
    return ((slot3)table()[slot])(a, b, c);
}

START_TEST(ids_and_arguments_as_the_real_library)
{
    nv_open();
    const void *t = (const void *)1;
    unsigned char other[16];
    memcpy(other, smi_id, sizeof other);
    other[15] ^= 1;
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlInternalGetExportTable(&t, other));
    ck_assert_ptr_null(t);   /* cleared first, as the real one does */
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlInternalGetExportTable(NULL, smi_id));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlInternalGetExportTable(&t, NULL));
    /* The table is there before nvmlInit (nvidia-smi asks right after it). */
    ck_assert_uint_eq(table()[0], 245 * sizeof(void *));
    for (unsigned i = 1; i < 245; i++)
        ck_assert_msg(table()[i] != 0, "slot %u", i);
}
END_TEST

START_TEST(slots_need_init_and_unknown_ones_are_not_supported)
{
    nv_open();
    unsigned v = 0;
    nvmlDevice_t h;
    NV_RC(NVML_ERROR_UNINITIALIZED, call(81, 0, (uintptr_t)&h, 0x22));
    NV_OK(nv.nvmlInit_v2());
    NV_RC(NVML_ERROR_NOT_SUPPORTED, call(7, 0, (uintptr_t)&v, 0));
    NV_RC(NVML_ERROR_NOT_SUPPORTED, call(244, 0, (uintptr_t)&v, 0));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(device_slots)
{
    nv_open();
    NV_OK(nv.nvmlInit_v2());
    nvmlDevice_t h, g3;
    unsigned v = 0;
    NV_OK(call(81, 3, (uintptr_t)&h, 0x22));
    NV_OK(nv.nvmlDeviceGetHandleByIndex_v2(3, &g3));
    ck_assert_ptr_eq(h, g3);
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, call(81, 8, (uintptr_t)&h, 0x22));
    NV_OK(call(72, (uintptr_t)h, (uintptr_t)&v, 0));
    ck_assert_uint_eq(v, 1);
    NV_OK(call(108, (uintptr_t)h, (uintptr_t)&v, 0));
    ck_assert_uint_eq(v, 400000);       /* mW, the A100's enforced limit */
    NV_OK(call(230, (uintptr_t)h, (uintptr_t)&v, 0));
    ck_assert_uint_eq(v, 4);            /* PCIe Gen4 host slot */
    v = 7;
    NV_OK(call(242, (uintptr_t)h, (uintptr_t)&v, 0));
    ck_assert_uint_eq(v, 0);            /* addressing mode None */
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, call(230, 0x1234, (uintptr_t)&v, 0));
    NV_OK(call(26, 0, 0, 0));           /* the log sink is taken and ignored */
    /* PCIe path in nvidia-smi's numbering: GPUs 0 and 4 sit on other NUMA nodes. */
    NV_OK(call(23, (uintptr_t)"00000000:07:00.0", (uintptr_t)"00000000:87:00.0", (uintptr_t)&v));
    ck_assert_uint_eq(v, 4);            /* SYS */
    NV_RC(NVML_ERROR_NOT_FOUND, call(23, (uintptr_t)"00000000:07:00.0", (uintptr_t)"0000:01:00.0",
                                     (uintptr_t)&v));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(process_lists)
{
    nv_open();
    nv_config("version: 1.0\n"
              "count: 1\n"
              "devices:\n"
              "  - index: 0\n"
              "    processes:\n"
              "      - {pid: 900, name: trainer, usedMemory: 2GiB}\n"
              "      - {pid: 901, name: Xorg, usedMemory: 16MiB, type: graphics}\n");
    NV_OK(nv.nvmlInit_v2());
    static struct smi_process p[4];
    nvmlDevice_t h;
    NV_OK(nv.nvmlDeviceGetHandleByIndex_v2(0, &h));
    unsigned n = 4;
    NV_OK(call(213, (uintptr_t)h, (uintptr_t)&n, (uintptr_t)p));   /* compute */
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(p[0].pid, 900);
    ck_assert_uint_eq(p[0].used_memory, 2ull << 30);
    ck_assert_uint_eq(p[0].gi, 0xFFFFFFFFu);
    ck_assert_str_eq(p[0].name, "trainer");
    ck_assert_str_eq(p[1].name, "Xorg");
    n = 4;
    NV_OK(call(215, (uintptr_t)h, (uintptr_t)&n, (uintptr_t)p));   /* graphics */
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(p[0].pid, 901);
    n = 4;
    NV_OK(call(214, (uintptr_t)h, (uintptr_t)&n, (uintptr_t)p));   /* MPS */
    ck_assert_uint_eq(n, 0);
    n = 1;
    NV_RC(NVML_ERROR_INSUFFICIENT_SIZE, call(213, (uintptr_t)h, (uintptr_t)&n, (uintptr_t)p));
    ck_assert_uint_eq(n, 2);
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, call(213, (uintptr_t)h, 0, (uintptr_t)p));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_export");
    TCase *tc = tcase_create("nvml_export");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ids_and_arguments_as_the_real_library);
    tcase_add_test(tc, slots_need_init_and_unknown_ones_are_not_supported);
    tcase_add_test(tc, device_slots);
    tcase_add_test(tc, process_lists);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
